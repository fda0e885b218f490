#include "tracking/tensorboard_events.h"

#include <cstdint>
#include <cstring>

#include "util/crc32c.h"

namespace capaboost::harness {

namespace {

// Protocol-buffer wire format, the few pieces an Event of scalars needs (all little-endian).
void put_varint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

template <typename T>
void put_little_endian(std::string& out, T value) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));  // x86-64 and AArch64 Linux are little-endian
  out.append(reinterpret_cast<const char*>(bytes), sizeof(T));
}

// Field keys: (number << 3) | wire type (0 varint, 1 64-bit, 2 length-delimited, 5 32-bit).
void put_key(std::string& out, int field, int wire_type) { put_varint(out, static_cast<uint64_t>(field << 3 | wire_type)); }

void put_bytes(std::string& out, int field, const std::string& bytes) {
  put_key(out, field, 2);
  put_varint(out, bytes.size());
  out += bytes;
}

// Event{wall_time, step, <what>}: `what` is file_version (3) or summary (5), already encoded.
std::string event(double wall_time, int64_t step, int what_field, const std::string& what) {
  std::string out;
  put_key(out, 1, 1);
  put_little_endian(out, wall_time);
  put_key(out, 2, 0);
  put_varint(out, static_cast<uint64_t>(step));
  put_bytes(out, what_field, what);
  return out;
}

// Summary.Value{tag = 1, simple_value = 2}.
std::string scalar_value(const std::string& tag, float value) {
  std::string out;
  put_bytes(out, 1, tag);
  put_key(out, 2, 5);
  put_little_endian(out, value);
  return out;
}

// TFRecord framing: uint64 length, masked CRC of those 8 bytes, the data, masked CRC of the data.
void put_record(std::string& out, const std::string& data) {
  std::string length;
  put_little_endian(length, static_cast<uint64_t>(data.size()));
  out += length;
  put_little_endian(out, masked_crc32c(length));
  out += data;
  put_little_endian(out, masked_crc32c(data));
}

}  // namespace

std::string encode_event_file(const std::vector<ScalarPoint>& points, double start_wall_time) {
  std::string file;
  put_record(file, event(start_wall_time, 0, 3, "brain.Event:2"));
  // One event per run of points that share a step (a step's loss, rate and norm; an epoch's metrics).
  for (size_t begin = 0; begin < points.size();) {
    size_t end = begin;
    std::string summary;
    while (end < points.size() && points[end].step == points[begin].step && points[end].seconds == points[begin].seconds) {
      put_bytes(summary, 1, scalar_value(points[end].tag, static_cast<float>(points[end].value)));
      ++end;
    }
    put_record(file, event(start_wall_time + points[begin].seconds, points[begin].step, 5, summary));
    begin = end;
  }
  return file;
}

}  // namespace capaboost::harness
