// The event file's bytes, read back by a decoder written here from the TFRecord and protocol-buffer
// specifications (the real tensorboard reads them in tracking_export_live_test.cpp).
#include "tracking/tensorboard_events.h"

#include <catch2/catch.hpp>

#include <cstring>

#include "util/crc32c.h"

using namespace capaboost;
using namespace capaboost::harness;

namespace {

struct DecodedEvent {
  double wall_time = 0;
  int64_t step = 0;
  std::string file_version;
  std::vector<std::pair<std::string, float>> scalars;
};

template <typename T>
T take(const std::string& bytes, size_t& at) {
  REQUIRE(at + sizeof(T) <= bytes.size());
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof(T));
  at += sizeof(T);
  return value;
}

uint64_t take_varint(const std::string& bytes, size_t& at) {
  uint64_t value = 0;
  for (int shift = 0;; shift += 7) {
    REQUIRE(at < bytes.size());
    const auto byte = static_cast<uint8_t>(bytes[at++]);
    value |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if (!(byte & 0x80)) return value;
  }
}

std::string take_length_delimited(const std::string& bytes, size_t& at) {
  const uint64_t length = take_varint(bytes, at);
  REQUIRE(at + length <= bytes.size());
  const std::string field = bytes.substr(at, length);
  at += length;
  return field;
}

std::pair<std::string, float> decode_value(const std::string& bytes) {
  std::pair<std::string, float> value;
  for (size_t at = 0; at < bytes.size();) {
    const uint64_t key = take_varint(bytes, at);
    if (key == (1 << 3 | 2)) value.first = take_length_delimited(bytes, at);
    else if (key == (2 << 3 | 5)) value.second = take<float>(bytes, at);
    else FAIL("unexpected Summary.Value field key " << key);
  }
  return value;
}

DecodedEvent decode_event(const std::string& bytes) {
  DecodedEvent event;
  for (size_t at = 0; at < bytes.size();) {
    const uint64_t key = take_varint(bytes, at);
    if (key == (1 << 3 | 1)) {
      event.wall_time = take<double>(bytes, at);
    } else if (key == (2 << 3 | 0)) {
      event.step = static_cast<int64_t>(take_varint(bytes, at));
    } else if (key == (3 << 3 | 2)) {
      event.file_version = take_length_delimited(bytes, at);
    } else if (key == (5 << 3 | 2)) {
      const std::string summary = take_length_delimited(bytes, at);
      for (size_t inner = 0; inner < summary.size();) {
        REQUIRE(take_varint(summary, inner) == (1 << 3 | 2));
        event.scalars.push_back(decode_value(take_length_delimited(summary, inner)));
      }
    } else {
      FAIL("unexpected Event field key " << key);
    }
  }
  return event;
}

std::vector<DecodedEvent> decode_file(const std::string& file) {
  std::vector<DecodedEvent> events;
  for (size_t at = 0; at < file.size();) {
    const std::string length_bytes = file.substr(at, 8);
    const auto length = take<uint64_t>(file, at);
    CHECK(take<uint32_t>(file, at) == masked_crc32c(length_bytes));
    REQUIRE(at + length <= file.size());
    const std::string data = file.substr(at, length);
    at += length;
    CHECK(take<uint32_t>(file, at) == masked_crc32c(data));
    events.push_back(decode_event(data));
  }
  return events;
}

}  // namespace

TEST_CASE("event files: a version event, then one event per step and time with that step's scalars",
          "[harness][tracking][tensorboard]") {
  const std::vector<ScalarPoint> points = {{1, "train/loss", 0.75, 0.5},      {1, "train/lr", 1e-4, 0.5},
                                           {2, "train/loss", 0.5, 1.0},       {2, "eval/accuracy", 0.625, 1.25},
                                           {300, "train/loss", 0.1, 9.0}};
  const auto events = decode_file(encode_event_file(points, 1.7e9));
  REQUIRE(events.size() == 5);
  CHECK(events[0].file_version == "brain.Event:2");
  CHECK(events[0].wall_time == 1.7e9);
  CHECK(events[1].step == 1);
  CHECK(events[1].wall_time == 1.7e9 + 0.5);
  REQUIRE(events[1].scalars.size() == 2);
  CHECK(events[1].scalars[0] == std::pair<std::string, float>("train/loss", 0.75f));
  CHECK(events[1].scalars[1] == std::pair<std::string, float>("train/lr", 1e-4f));
  // The epoch's metrics come later than the step's loss: an event of their own, at their own time.
  CHECK(events[2].scalars.size() == 1);
  CHECK(events[3].step == 2);
  CHECK(events[3].scalars[0].first == "eval/accuracy");
  CHECK(events[4].step == 300);  // a step over 127 takes a two-byte varint
  CHECK(events[4].scalars[0].second == 0.1f);
}
