#include "checkpoint/safetensors.h"

#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "support/reference_python.h"
#include "support/temp_dir.h"

using namespace capaboost;
using capaboost::testing::TempDir;
using Catch::Contains;

namespace {

// A file made byte by byte, to build every kind of corruption the reader must reject.
void write_raw(const std::string& path, const std::string& header, const std::string& data,
               std::optional<uint64_t> header_size = std::nullopt) {
  const uint64_t size = header_size.value_or(header.size());
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(&size), 8);
  out << header << data;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::map<std::string, torch::Tensor> every_dtype() {
  torch::manual_seed(1);
  return {
      {"f64", torch::randn({3, 2}, torch::kFloat64)},
      {"f32", torch::randn({4, 5})},
      {"f16", torch::randn({7}).to(torch::kHalf)},
      {"bf16", torch::randn({2, 3}).to(torch::kBFloat16)},
      {"i64", torch::arange(-5, 6, torch::kLong)},
      {"i32", torch::tensor({-7, 0, 2147483647}, torch::kInt)},
      {"i16", torch::tensor({-300, 300}, torch::kShort)},
      {"i8", torch::tensor({-128, 127, 3}, torch::kChar)},
      {"u8", torch::tensor({0, 255}, torch::kByte)},
      {"bool", torch::tensor({true, false, true})},
      {"scalar", torch::tensor(2.5)},
      {"empty", torch::empty({0, 3})},
      {"transposed", torch::arange(12, torch::kFloat).view({3, 4}).t()},  // non-contiguous input
  };
}

}  // namespace

TEST_CASE("safetensors round trip keeps dtype, shape and bits for every supported dtype", "[safetensors]") {
  TempDir dir;
  const auto path = dir.file("all.safetensors");
  const auto tensors = every_dtype();
  save_safetensors(path, tensors, {{"producer", "capaboost test"}});

  SafetensorsFile file(path);
  CHECK(file.metadata().at("format") == "pt");
  CHECK(file.metadata().at("producer") == "capaboost test");
  REQUIRE(file.names().size() == tensors.size());
  for (const auto& [name, expected] : tensors) {
    INFO(name);
    auto actual = file.tensor(name);
    CHECK(actual.scalar_type() == expected.scalar_type());
    CHECK(actual.sizes() == expected.sizes());
    CHECK(torch::equal(actual, expected));
  }
}

TEST_CASE("safetensors writer lays the file out as Hugging Face does", "[safetensors]") {
  TempDir dir;
  const auto path = dir.file("layout.safetensors");
  save_safetensors(path, {{"b.weight", torch::ones({3})},
                          {"a.bias", torch::zeros({2}, torch::kLong)},
                          {"C", torch::ones({1}, torch::kHalf)}});
  const auto bytes = file_bytes(path);
  uint64_t header_size = 0;
  std::memcpy(&header_size, bytes.data(), 8);
  CHECK(header_size % 8 == 0);  // the data section starts 8-byte aligned
  const auto header_text = bytes.substr(8, header_size);
  CHECK(header_text.find_last_not_of(' ') == header_text.rfind('}'));  // padded with spaces only
  const auto ordered = nlohmann::ordered_json::parse(header_text);
  std::vector<std::string> keys;
  for (const auto& item : ordered.items()) keys.push_back(item.key());
  const auto header = nlohmann::json::parse(header_text);
  CHECK(keys == std::vector<std::string>{"__metadata__", "C", "a.bias", "b.weight"});  // byte order
  CHECK(header["__metadata__"] == nlohmann::json({{"format", "pt"}}));
  CHECK(header["C"]["data_offsets"] == nlohmann::json({0, 2}));
  CHECK(header["a.bias"]["data_offsets"] == nlohmann::json({2, 18}));
  CHECK(header["b.weight"]["data_offsets"] == nlohmann::json({18, 30}));
  CHECK(header["a.bias"]["dtype"] == "I64");
  CHECK(bytes.size() == 8 + header_size + 30);
}

TEST_CASE("safetensors tensors view the mapped file, copy-on-write, and misaligned ones are copied",
          "[safetensors]") {
  TempDir dir;
  const auto path = dir.file("view.safetensors");
  // "a" (3 bytes) pushes "b" (F32) to data offset 3: misaligned for float.
  save_safetensors(path, {{"a", torch::tensor({1, 2, 3}, torch::kByte)},
                          {"b", torch::arange(4, torch::kFloat)},
                          {"c", torch::arange(5, torch::kFloat)}});
  SafetensorsFile file(path);
  CHECK(torch::equal(file.tensor("b"), torch::arange(4, torch::kFloat)));
  // "c" starts at 3 + 16 = 19: also misaligned; "a" is bytes, always aligned, so it is a view.
  CHECK(file.tensor("a").data_ptr() == file.tensor("a").data_ptr());
  CHECK(file.tensor("b").data_ptr() != file.tensor("b").data_ptr());

  auto view = file.tensor("a");
  view.fill_(9);  // private mapping: neither the file nor a fresh open sees this
  CHECK(file.tensor("a").eq(9).all().item<bool>());
  CHECK(torch::equal(SafetensorsFile(path).tensor("a"), torch::tensor({1, 2, 3}, torch::kByte)));
  const auto outlives = SafetensorsFile(path).tensor("a");  // keeps its mapping alive
  CHECK(outlives.sum().item<int64_t>() == 6);
}

TEST_CASE("safetensors reader rejects corrupt files, naming the file and the tensor", "[safetensors]") {
  TempDir dir;
  const auto path = dir.file("bad.safetensors");
  const std::string eight_bytes(8, '\0');

  SECTION("truncated file") {
    save_safetensors(path, {{"first", torch::ones({4})}, {"last", torch::ones({4})}});
    const auto bytes = file_bytes(path);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() - 4);
    CHECK_THROWS_WITH(SafetensorsFile(path),
                      Contains(path) && Contains("tensor 'last'") && Contains("truncated"));
  }
  SECTION("file shorter than the header length field") {
    std::ofstream(path, std::ios::binary) << "abc";
    CHECK_THROWS_WITH(SafetensorsFile(path), Contains(path) && Contains("3 bytes"));
  }
  SECTION("header length beyond the end of the file") {
    write_raw(path, R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", "abcd", 5000);
    CHECK_THROWS_WITH(SafetensorsFile(path), Contains(path) && Contains("header length field says 5000"));
  }
  SECTION("absurd header length") {
    write_raw(path, "{}", "", uint64_t{1} << 40);
    CHECK_THROWS_WITH(SafetensorsFile(path), Contains(path) && Contains("limit"));
  }
  SECTION("header that is not JSON") {
    write_raw(path, R"({"x": {"dtype": "F32", "shape": [1], )", "abcd");
    CHECK_THROWS_WITH(SafetensorsFile(path), Contains(path) && Contains("not valid JSON"));
  }
  SECTION("header with a number beyond double's range (found by make fuzz)") {
    write_raw(path, R"({"x":{"dtype":"F32","shape":[1e400],"data_offsets":[0,4]}})", "abcd");
    CHECK_THROWS_WITH(SafetensorsFile(path), Contains(path) && Contains("not valid JSON") && Contains("1e400"));
  }
  SECTION("header that is not an object") {
    write_raw(path, "[1, 2]", "");
    CHECK_THROWS_WITH(SafetensorsFile(path), Contains(path) && Contains("does not start with '{'"));
  }
  SECTION("overlapping offsets") {
    write_raw(path,
              R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
              R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
              std::string(12, '\0'));
    CHECK_THROWS_WITH(SafetensorsFile(path),
                      Contains(path) && Contains("tensor 'b'") && Contains("overlap tensor 'a'"));
  }
  SECTION("gap between tensors") {
    write_raw(path,
              R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
              R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
              std::string(12, '\0'));
    CHECK_THROWS_WITH(SafetensorsFile(path), Contains(path) && Contains("tensor 'b'") && Contains("gap"));
  }
  SECTION("trailing bytes after the last tensor") {
    write_raw(path, R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", std::string(6, '\0'));
    CHECK_THROWS_WITH(SafetensorsFile(path), Contains(path) && Contains("cover 4 bytes"));
  }
  SECTION("byte length that does not match shape x dtype") {
    write_raw(path, R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", eight_bytes);
    CHECK_THROWS_WITH(SafetensorsFile(path), Contains(path) && Contains("tensor 'w'") &&
                                                 Contains("needs 12 bytes") && Contains("hold 8"));
  }
  SECTION("offsets past the end of the data") {
    write_raw(path, R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", eight_bytes);
    CHECK_THROWS_WITH(SafetensorsFile(path),
                      Contains(path) && Contains("tensor 'w'") && Contains("past the end"));
  }
  SECTION("offsets running backwards") {
    write_raw(path, R"({"w":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}})", eight_bytes);
    CHECK_THROWS_WITH(SafetensorsFile(path),
                      Contains(path) && Contains("tensor 'w'") && Contains("backwards"));
  }
  SECTION("unknown dtype") {
    write_raw(path, R"({"q":{"dtype":"F8_E4M3","shape":[8],"data_offsets":[0,8]}})", eight_bytes);
    CHECK_THROWS_WITH(SafetensorsFile(path),
                      Contains(path) && Contains("tensor 'q'") && Contains("unknown dtype 'F8_E4M3'"));
  }
  SECTION("duplicate names") {
    write_raw(path,
              R"({"d":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
              R"("d":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
              eight_bytes);
    CHECK_THROWS_WITH(SafetensorsFile(path),
                      Contains(path) && Contains("tensor 'd'") && Contains("more than once"));
  }
  SECTION("negative shape") {
    write_raw(path, R"({"s":{"dtype":"U8","shape":[-8],"data_offsets":[0,8]}})", eight_bytes);
    CHECK_THROWS_WITH(SafetensorsFile(path),
                      Contains(path) && Contains("tensor 's'") && Contains("non-negative"));
  }
  SECTION("entry without data_offsets") {
    write_raw(path, R"({"s":{"dtype":"U8","shape":[8]}})", eight_bytes);
    CHECK_THROWS_WITH(SafetensorsFile(path),
                      Contains(path) && Contains("tensor 's'") && Contains("data_offsets"));
  }
  SECTION("metadata that is not strings") {
    write_raw(path, R"({"__metadata__":{"format":1},"s":{"dtype":"U8","shape":[8],"data_offsets":[0,8]}})",
              eight_bytes);
    CHECK_THROWS_WITH(SafetensorsFile(path), Contains(path) && Contains("__metadata__"));
  }
  SECTION("missing file") {
    CHECK_THROWS_WITH(SafetensorsFile(dir.file("absent.safetensors")),
                      Contains("absent.safetensors") && Contains("cannot open"));
  }
  SECTION("asking for a tensor the file lacks") {
    save_safetensors(path, {{"a", torch::ones({1})}});
    CHECK_THROWS_WITH(SafetensorsFile(path).tensor("b"), Contains(path) && Contains("tensor 'b'"));
  }
}

TEST_CASE("safetensors writer is atomic and names the tensor it cannot store", "[safetensors]") {
  TempDir dir;
  const auto path = dir.file("model.safetensors");
  save_safetensors(path, {{"kept", torch::ones({2})}});
  const auto before = file_bytes(path);
  CHECK_THROWS_WITH(
      save_safetensors(path, {{"a", torch::ones({2})}, {"z", torch::ones({2}, torch::kComplexFloat)}}),
      Contains(path) && Contains("tensor 'z'") && Contains("ComplexFloat"));
  CHECK(file_bytes(path) == before);  // the old file is untouched
  int entries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    (void)entry;
    ++entries;
  }
  CHECK(entries == 1);  // and no temporary file is left behind
  save_safetensors(path, {{"new", torch::zeros({1})}});
  CHECK(SafetensorsFile(path).names() == std::vector<std::string>{"new"});
}

TEST_CASE("files we write pass an independent Python reader and hold the same tensors",
          "[safetensors][python]") {
  const auto python = capaboost::testing::reference_python();
  if (!python) {
    WARN("skipped: no system python3 with torch (`command -v -p python3`; Debian's python3-torch)");
    return;
  }
  TempDir dir;
  auto tensors = every_dtype();
  save_safetensors(dir.file("all.safetensors"), tensors);
  // The expected values travel through torch's own pickle format, which torch.load reads.
  c10::Dict<std::string, torch::Tensor> expected;
  for (const auto& [name, tensor] : tensors) expected.insert(name, tensor.contiguous());
  const auto pickled = torch::pickle_save(expected);
  std::ofstream(dir.file("expected.pt"), std::ios::binary).write(pickled.data(), pickled.size());

  const std::string checker = CAPABOOST_SOURCE_DIR "/tests/lib/checkpoint/safetensors_reference_check.py";
  const auto result =
      capaboost::testing::run_command("'" + *python + "' '" + checker + "' '" + dir.file("all.safetensors") +
                                      "' '" + dir.file("expected.pt") + "'");
  INFO(result.output);
  CHECK(result.exit_code == 0);
  CHECK_THAT(result.output, Contains("OK 13 tensors"));

  // The checker is not a tautology: a tensor that differs in one bit fails it.
  tensors["f32"][0][0] = std::nextafter(tensors["f32"][0][0].item<float>(), 1e9f);
  save_safetensors(dir.file("all.safetensors"), tensors);
  const auto changed =
      capaboost::testing::run_command("'" + *python + "' '" + checker + "' '" + dir.file("all.safetensors") +
                                      "' '" + dir.file("expected.pt") + "'");
  INFO(changed.output);
  CHECK(changed.exit_code == 1);
  CHECK_THAT(changed.output, Contains("f32"));
}
