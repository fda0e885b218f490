// GgufFile and the dequantiser on small GGUF files written here byte by byte (tests/support/gguf_builder.h):
// metadata of every value type and the typed accessors, the tensor table in PyTorch order, each block type
// against its closed form with hand-picked scales and values, and every kind of broken file, each
// refused with a c10::Error naming the file and the field.

#include "checkpoint/gguf_file.h"

#include <torch/torch.h>

#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "support/gguf_builder.h"
#include "support/temp_dir.h"

using namespace capaboost;
using capaboost::testing::f32_bytes;
using capaboost::testing::GgufBuilder;
using capaboost::testing::half_bits;
using capaboost::testing::le_bytes;
using capaboost::testing::TempDir;
using Catch::Contains;

namespace {

GgufValue gguf_string_array(const std::vector<std::string>& items) {
  GgufArray array{GgufValueType::kString, {}};
  for (const auto& item : items) array.elements.push_back({item});
  return {array};
}

// A Q8_0 block: an f16 scale, then 32 int8 values.
std::string q8_0_block(float scale, const std::array<int8_t, 32>& values) {
  std::string bytes = le_bytes(half_bits(scale));
  for (const int8_t value : values) bytes += static_cast<char>(value);
  return bytes;
}

// 4-bit values as ggml packs them: element j in the low nibble of byte j, element j + 16 in its high one.
std::string gguf_test_nibbles(const std::array<uint8_t, 32>& values) {
  std::string bytes;
  for (int j = 0; j < 16; ++j) bytes += static_cast<char>(values[j] | (values[j + 16] << 4));
  return bytes;
}

std::string q4_0_block(float scale, const std::array<uint8_t, 32>& values) {
  return le_bytes(half_bits(scale)) + gguf_test_nibbles(values);
}

std::string q4_1_block(float scale, float minimum, const std::array<uint8_t, 32>& values) {
  return le_bytes(half_bits(scale)) + le_bytes(half_bits(minimum)) + gguf_test_nibbles(values);
}

template <typename T>
std::array<T, 32> gguf_test_values(int (*value_of)(int)) {
  std::array<T, 32> values{};
  for (int i = 0; i < 32; ++i) values[i] = static_cast<T>(value_of(i));
  return values;
}

std::vector<float> gguf_test_floats(const torch::Tensor& tensor) {
  const auto flat = tensor.contiguous().view(-1);
  return {flat.data_ptr<float>(), flat.data_ptr<float>() + flat.numel()};
}

uint32_t gguf_test_bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// Patches `value` into `bytes` at the first occurrence of `marker` plus `shift` bytes.
template <typename T>
void patch_after(std::string& bytes, const std::string& marker, std::size_t shift, T value) {
  const auto at = bytes.find(marker);
  REQUIRE(at != std::string::npos);
  const auto encoded = le_bytes(value);
  bytes.replace(at + marker.size() + shift, encoded.size(), encoded);
}

// The header's tensor count sits at byte 8, the metadata count at byte 16.
constexpr std::size_t kTensorCountAt = 8;
constexpr std::size_t kMetadataCountAt = 16;

// One metadata entry and one Q4_1 tensor of two blocks: the file most error cases start from.
GgufBuilder small_gguf() {
  GgufBuilder gguf;
  gguf.add("general.architecture", {std::string("llama")});
  gguf.add_tensor("blk.0.w", GgmlType::kQ4_1, {64, 1},
                  q4_1_block(0.5f, -1.0f, gguf_test_values<uint8_t>([](int i) { return i % 16; })) +
                      q4_1_block(1.0f, 0.0f, gguf_test_values<uint8_t>([](int i) { return 15 - i % 16; })));
  return gguf;
}

}  // namespace

TEST_CASE("GgufFile reads metadata of every value type, in file order", "[gguf]") {
  TempDir dir;
  GgufBuilder gguf;
  gguf.add("u8", {uint8_t{200}});
  gguf.add("i8", {int8_t{-5}});
  gguf.add("u16", {uint16_t{60000}});
  gguf.add("i16", {int16_t{-300}});
  gguf.add("u32", {uint32_t{4000000000u}});
  gguf.add("i32", {int32_t{-2000000000}});
  gguf.add("f32", {0.1f});
  gguf.add("bool", {true});
  gguf.add("string", {std::string("llama")});
  gguf.add("u64", {uint64_t{1} << 40});
  gguf.add("u64.huge", {std::numeric_limits<uint64_t>::max()});
  gguf.add("i64", {int64_t{-(int64_t{1} << 50)}});
  gguf.add("f64", {1e-300});
  gguf.add("tokens", gguf_string_array({"<s>", "", "h\xc3\xa9llo", std::string("a\0b", 3)}));
  gguf.add("token_type", {GgufArray{GgufValueType::kInt32, {{int32_t{1}}, {int32_t{-3}}, {int32_t{6}}}}});
  gguf.add("sizes", {GgufArray{GgufValueType::kUint64, {{uint64_t{7}}, {uint64_t{1} << 33}}}});
  gguf.add("scores", {GgufArray{GgufValueType::kFloat32, {{0.5f}, {-2.25f}}}});
  gguf.add("weights", {GgufArray{GgufValueType::kFloat64, {{1e100}}}});
  gguf.add("empty", {GgufArray{GgufValueType::kUint8, {}}});
  gguf.add("nested", {GgufArray{GgufValueType::kArray, {{GgufArray{GgufValueType::kInt8, {{int8_t{-1}}}}}}}});
  gguf.write(dir.file("meta.gguf"));

  const GgufFile file(dir.file("meta.gguf"));
  CHECK(file.version() == 3);
  CHECK(file.alignment() == 32);
  CHECK(file.tensors().empty());
  CHECK(file.keys() == std::vector<std::string>{"u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string",
                                                "u64", "u64.huge", "i64", "f64", "tokens", "token_type", "sizes",
                                                "scores", "weights", "empty", "nested"});
  const std::vector<std::pair<std::string, GgufValueType>> types = {
      {"u8", GgufValueType::kUint8},    {"i8", GgufValueType::kInt8},       {"u16", GgufValueType::kUint16},
      {"i16", GgufValueType::kInt16},   {"u32", GgufValueType::kUint32},    {"i32", GgufValueType::kInt32},
      {"f32", GgufValueType::kFloat32}, {"bool", GgufValueType::kBool},     {"string", GgufValueType::kString},
      {"u64", GgufValueType::kUint64},  {"i64", GgufValueType::kInt64},     {"f64", GgufValueType::kFloat64},
      {"tokens", GgufValueType::kArray}};
  for (const auto& [key, type] : types) {
    INFO(key);
    CHECK(file.value(key).type() == type);
  }

  CHECK(file.integer("u8") == 200);
  CHECK(file.integer("i8") == -5);
  CHECK(file.integer("u16") == 60000);
  CHECK(file.integer("i16") == -300);
  CHECK(file.integer("u32") == 4000000000LL);
  CHECK(file.integer("i32") == -2000000000LL);
  CHECK(file.integer("u64") == (int64_t{1} << 40));
  CHECK(file.integer("i64") == -(int64_t{1} << 50));
  CHECK(file.real("f32") == static_cast<double>(0.1f));
  CHECK(file.real("f64") == 1e-300);
  CHECK(file.boolean("bool"));
  CHECK(file.string("string") == "llama");
  CHECK(file.strings("tokens") == std::vector<std::string>{"<s>", "", "h\xc3\xa9llo", std::string("a\0b", 3)});
  CHECK(file.integers("token_type") == std::vector<int64_t>{1, -3, 6});
  CHECK(file.integers("sizes") == std::vector<int64_t>{7, int64_t{1} << 33});
  CHECK(file.reals("scores") == std::vector<double>{0.5, -2.25});
  CHECK(file.reals("weights") == std::vector<double>{1e100});
  CHECK(file.integers("empty").empty());
  CHECK(std::get<GgufArray>(file.value("empty").value).element_type == GgufValueType::kUint8);
  const auto& nested = std::get<GgufArray>(file.value("nested").value);
  REQUIRE(nested.elements.size() == 1);
  CHECK(std::get<int8_t>(std::get<GgufArray>(nested.elements[0].value).elements.at(0).value) == -1);
  CHECK(file.has("u8"));
  CHECK_FALSE(file.has("general.name"));

  SECTION("a missing key or another type is an error naming the file, the key and what it found") {
    const auto path = dir.file("meta.gguf");
    CHECK_THROWS_WITH(file.string("general.name"), Contains(path) && Contains("'general.name' is missing"));
    CHECK_THROWS_WITH(file.string("u32"), Contains(path) && Contains("'u32'") && Contains("found uint32 4000000000"));
    CHECK_THROWS_WITH(file.integer("f32"), Contains("'f32'") && Contains("expected an integer, found float32"));
    CHECK_THROWS_WITH(file.integer("bool"), Contains("'bool'") && Contains("found bool true"));
    CHECK_THROWS_WITH(file.integer("u64.huge"), Contains("'u64.huge'") && Contains("does not fit an int64"));
    CHECK_THROWS_WITH(file.real("i32"), Contains("'i32'") && Contains("found int32 -2000000000"));
    CHECK_THROWS_WITH(file.boolean("u8"), Contains("'u8'") && Contains("found uint8 200"));
    CHECK_THROWS_WITH(file.strings("token_type"), Contains("'token_type'") && Contains("array of 3 int32"));
    CHECK_THROWS_WITH(file.strings("string"), Contains("'string'") && Contains("found string 'llama'"));
    CHECK_THROWS_WITH(file.integers("tokens"), Contains("'tokens'") && Contains("array of 4 string"));
    CHECK_THROWS_WITH(file.reals("token_type"), Contains("'token_type'") && Contains("array of 3 int32"));
    CHECK_THROWS_WITH(file.integers("nested"), Contains("'nested'") && Contains("array of 1 array"));
  }
}

TEST_CASE("GgufFile's tensor table is in PyTorch order, aligned, with each tensor's bytes", "[gguf]") {
  TempDir dir;
  GgufBuilder gguf;
  gguf.alignment = 64;
  gguf.add("general.alignment", {uint32_t{64}});
  gguf.add_tensor("norm", GgmlType::kF32, {3}, f32_bytes({1.0f, 2.0f, 3.0f}));
  gguf.add_tensor("embd", GgmlType::kQ8_0, {32, 2},
                  q8_0_block(1.0f, gguf_test_values<int8_t>([](int i) { return i; })) +
                      q8_0_block(2.0f, gguf_test_values<int8_t>([](int i) { return -i; })));
  gguf.add_tensor("cube", GgmlType::kQ4_1, {32, 2, 3}, std::string(6 * 20, '\x11'));
  gguf.add_tensor("scalar", GgmlType::kF32, {}, f32_bytes({4.5f}));
  gguf.add_tensor("nothing", GgmlType::kF16, {0, 5}, "");
  gguf.write(dir.file("table.gguf"));

  const GgufFile file(dir.file("table.gguf"));
  CHECK(file.alignment() == 64);
  CHECK(file.data_offset() % 64 == 0);
  REQUIRE(file.tensors().size() == 5);
  const std::vector<std::string> names = {"norm", "embd", "cube", "scalar", "nothing"};
  for (std::size_t i = 0; i < names.size(); ++i) CHECK(file.tensors()[i].name == names[i]);

  const auto& embd = file.tensor_info("embd");
  CHECK(embd.type == GgmlType::kQ8_0);
  CHECK(embd.shape == std::vector<int64_t>{2, 32});
  CHECK(embd.offset == 64);  // "norm" takes 12 bytes, padded to 64
  CHECK(embd.bytes == 68);
  CHECK(embd.rows() == 2);
  CHECK(embd.columns() == 32);
  const auto& cube = file.tensor_info("cube");
  CHECK(cube.shape == std::vector<int64_t>{3, 2, 32});
  CHECK(cube.offset == 192);
  CHECK(cube.bytes == 120);
  CHECK(cube.rows() == 6);
  CHECK(file.tensor_info("scalar").shape.empty());
  CHECK(file.tensor_info("nothing").shape == std::vector<int64_t>{5, 0});
  CHECK(file.has_tensor("cube"));
  CHECK_FALSE(file.has_tensor("cube.weight"));
  CHECK_THROWS_WITH(file.tensor_info("cube.weight"), Contains(dir.file("table.gguf")) && Contains("no tensor 'cube.weight'"));

  CHECK(file.dequantize("norm").equal(torch::tensor({1.0f, 2.0f, 3.0f})));
  CHECK(file.dequantize("scalar").equal(torch::tensor(4.5f)));
  CHECK(file.dequantize("nothing").sizes() == std::vector<int64_t>{5, 0});
  CHECK(file.dequantize("cube").sizes() == std::vector<int64_t>{3, 2, 32});
  const auto embd_values = file.dequantize("embd");
  REQUIRE(embd_values.sizes() == std::vector<int64_t>{2, 32});
  CHECK(embd_values[0].equal(torch::arange(32, torch::kFloat32)));
  CHECK(embd_values[1].equal(torch::arange(32, torch::kFloat32) * -2.0f));

  SECTION("raw_blocks views the file's bytes, (rows, bytes per row), and outlives the GgufFile") {
    torch::Tensor blocks;
    {
      const GgufFile reopened(dir.file("table.gguf"));
      blocks = reopened.raw_blocks("cube");
    }
    REQUIRE(blocks.sizes() == std::vector<int64_t>{6, 20});
    CHECK(blocks.scalar_type() == torch::kUInt8);
    CHECK((blocks == 0x11).all().item<bool>());
    CHECK(file.raw_blocks("nothing").sizes() == std::vector<int64_t>{5, 0});
    CHECK(file.raw_blocks("scalar").sizes() == std::vector<int64_t>{1, 4});
  }
}

TEST_CASE("Q8_0, Q4_0 and Q4_1 blocks dequantise to their closed forms", "[gguf]") {
  TempDir dir;
  GgufBuilder gguf;
  // Q8_0: x = q·d with d = 0.5 and q = i − 16 (every sign), then a block with d = 0.
  gguf.add_tensor("q8_0", GgmlType::kQ8_0, {64},
                  q8_0_block(0.5f, gguf_test_values<int8_t>([](int i) { return i - 16; })) +
                      q8_0_block(0.0f, gguf_test_values<int8_t>([](int i) { return 127 - i; })));
  // Q4_0: x = (q − 8)·d with d = 0.25; low nibbles 0..15, high nibbles 15..0.
  gguf.add_tensor("q4_0", GgmlType::kQ4_0, {32},
                  q4_0_block(0.25f, gguf_test_values<uint8_t>([](int i) { return i < 16 ? i : 31 - i; })));
  // Q4_1: x = q·d + m with d = 0.5, m = −1.25, and with d = −2, m = 3.
  gguf.add_tensor("q4_1", GgmlType::kQ4_1, {32, 2},
                  q4_1_block(0.5f, -1.25f, gguf_test_values<uint8_t>([](int i) { return i < 16 ? i : 31 - i; })) +
                      q4_1_block(-2.0f, 3.0f, gguf_test_values<uint8_t>([](int i) { return (i * 7) % 16; })));
  gguf.write(dir.file("blocks.gguf"));
  const GgufFile file(dir.file("blocks.gguf"));

  const auto q8_0 = gguf_test_floats(file.dequantize("q8_0"));
  REQUIRE(q8_0.size() == 64);
  for (int i = 0; i < 32; ++i) {
    CHECK(q8_0[i] == 0.5f * static_cast<float>(i - 16));
    CHECK(q8_0[32 + i] == 0.0f);
  }

  const auto q4_0 = gguf_test_floats(file.dequantize("q4_0"));
  REQUIRE(q4_0.size() == 32);
  for (int i = 0; i < 32; ++i) CHECK(q4_0[i] == 0.25f * static_cast<float>((i < 16 ? i : 31 - i) - 8));
  CHECK(q4_0.front() == -2.0f);  // nibble 0
  CHECK(q4_0[16] == 1.75f);      // element 16: the high nibble of byte 0, 15

  const auto q4_1 = file.dequantize("q4_1");
  REQUIRE(q4_1.sizes() == std::vector<int64_t>{2, 32});
  const auto first = gguf_test_floats(q4_1[0]);
  const auto second = gguf_test_floats(q4_1[1]);
  for (int i = 0; i < 32; ++i) {
    CHECK(first[i] == 0.5f * static_cast<float>(i < 16 ? i : 31 - i) - 1.25f);
    CHECK(second[i] == -2.0f * static_cast<float>((i * 7) % 16) + 3.0f);
  }
  CHECK(first[0] == -1.25f);
  CHECK(first[15] == 6.25f);
  CHECK(first[16] == 6.25f);
  CHECK(first[31] == -1.25f);

  SECTION("dequantize_blocks is the same dequantiser, on any rows of raw blocks") {
    const auto blocks = file.raw_blocks("q4_1");
    CHECK(dequantize_blocks(blocks, GgmlType::kQ4_1, 32).equal(q4_1));
    // A row on its own (a view at an offset), rows in another order, and rows taken with a stride.
    CHECK(dequantize_blocks(blocks.narrow(0, 1, 1), GgmlType::kQ4_1, 32).equal(q4_1.narrow(0, 1, 1)));
    auto out = torch::full({2, 32}, std::nanf(""));
    dequantize_blocks_into(blocks.flip(0), GgmlType::kQ4_1, out);
    CHECK(out.equal(q4_1.flip(0)));
    const auto every_other = torch::stack({blocks[0], blocks[1], blocks[0]}).slice(0, 0, 3, 2);
    CHECK(dequantize_blocks(every_other, GgmlType::kQ4_1, 32).equal(torch::stack({q4_1[0], q4_1[0]})));
  }
}

TEST_CASE("F32, F16 and BF16 tensors widen to float32 exactly, NaN payloads included", "[gguf]") {
  TempDir dir;
  GgufBuilder gguf;
  const std::vector<float> f32 = {0.1f, -0.0f, std::numeric_limits<float>::infinity(),
                                  std::numeric_limits<float>::denorm_min()};
  gguf.add_tensor("f32", GgmlType::kF32, {4}, f32_bytes(f32));
  // Half bits: 1.0, −2.5, the smallest subnormal 2^-24, the largest subnormal, −0, inf, a quiet NaN with a
  // payload, a signalling NaN, 65504 (the largest finite half).
  const std::vector<uint16_t> halves = {0x3c00, 0xc100, 0x0001, 0x03ff, 0x8000, 0x7c00, 0x7e01, 0x7c01, 0x7bff};
  std::string f16;
  for (const uint16_t half : halves) f16 += le_bytes(half);
  gguf.add_tensor("f16", GgmlType::kF16, {halves.size()}, f16);
  // bfloat16: the upper 16 bits of a float32: 1.0, −3.0, a NaN with a payload.
  std::string bf16 = le_bytes<uint16_t>(0x3f80) + le_bytes<uint16_t>(0xc040) + le_bytes<uint16_t>(0x7f81);
  gguf.add_tensor("bf16", GgmlType::kBF16, {1, 3}, bf16);
  gguf.write(dir.file("plain.gguf"));
  const GgufFile file(dir.file("plain.gguf"));

  const auto f32_back = gguf_test_floats(file.dequantize("f32"));
  for (std::size_t i = 0; i < f32.size(); ++i) CHECK(gguf_test_bits(f32_back[i]) == gguf_test_bits(f32[i]));

  std::vector<uint32_t> f16_bits;
  for (const float value : gguf_test_floats(file.dequantize("f16"))) f16_bits.push_back(gguf_test_bits(value));
  CHECK(f16_bits == std::vector<uint32_t>{gguf_test_bits(1.0f), gguf_test_bits(-2.5f),
                                          gguf_test_bits(std::ldexp(1.0f, -24)),
                                          gguf_test_bits(std::ldexp(1023.0f, -24)), 0x80000000u, 0x7f800000u,
                                          0x7fc02000u, 0x7f802000u, gguf_test_bits(65504.0f)});

  const auto bf16_back = file.dequantize("bf16");
  CHECK(bf16_back.sizes() == std::vector<int64_t>{3, 1});  // ne [1, 3]
  std::vector<uint32_t> bf16_bits;
  for (const float value : gguf_test_floats(bf16_back)) bf16_bits.push_back(gguf_test_bits(value));
  CHECK(bf16_bits == std::vector<uint32_t>{0x3f800000u, 0xc0400000u, 0x7f810000u});
}

TEST_CASE("GGUF types the suite cannot dequantise are read, kept as raw blocks and refused by name", "[gguf]") {
  TempDir dir;
  GgufBuilder gguf;
  gguf.add_tensor("blk.0.ffn_down.weight", GgmlType::kQ6_K, {256, 2}, std::string(2 * 210, '\x01'));
  gguf.write(dir.file("q6_k.gguf"));
  const GgufFile file(dir.file("q6_k.gguf"));
  const auto& info = file.tensor_info("blk.0.ffn_down.weight");
  CHECK(info.type == GgmlType::kQ6_K);
  CHECK(to_string(info.type) == "Q6_K");
  CHECK(info.bytes == 420);
  CHECK(file.raw_blocks("blk.0.ffn_down.weight").sizes() == std::vector<int64_t>{2, 210});
  CHECK_THROWS_WITH(file.dequantize("blk.0.ffn_down.weight"),
                    Contains(dir.file("q6_k.gguf")) && Contains("tensor 'blk.0.ffn_down.weight'") &&
                        Contains("cannot dequantise Q6_K"));
  CHECK_THROWS_WITH(dequantize_blocks(file.raw_blocks("blk.0.ffn_down.weight"), GgmlType::kQ6_K, 256),
                    Contains("cannot dequantise ggml type Q6_K"));
  CHECK(ggml_type_dequantizable(GgmlType::kQ4_1));
  CHECK_FALSE(ggml_type_dequantizable(GgmlType::kQ5_0));
  CHECK(ggml_type_from_code(30) == GgmlType::kBF16);
  CHECK_FALSE(ggml_type_from_code(4).has_value());  // Q4_2, removed from ggml

  SECTION("dequantize_blocks checks the rows against the type and the column count") {
    const auto q4_1_rows = torch::zeros({3, 20}, torch::kUInt8);
    CHECK(dequantize_blocks(q4_1_rows, GgmlType::kQ4_1, 32).sizes() == std::vector<int64_t>{3, 32});
    CHECK_THROWS_WITH(dequantize_blocks(q4_1_rows, GgmlType::kQ4_1, 64), Contains("takes 40 bytes") && Contains("20 per row"));
    CHECK_THROWS_WITH(dequantize_blocks(q4_1_rows, GgmlType::kQ4_1, 40), Contains("whole blocks of 32"));
    CHECK_THROWS_WITH(dequantize_blocks(q4_1_rows.view(-1), GgmlType::kQ4_1, 32), Contains("2-D uint8"));
    auto out = torch::empty({2, 32});
    CHECK_THROWS_WITH(dequantize_blocks_into(q4_1_rows, GgmlType::kQ4_1, out), Contains("3 rows of blocks"));
  }
}

TEST_CASE("GgufFile reads GGUF version 2 and refuses version 1, later versions and big-endian files", "[gguf]") {
  TempDir dir;
  const auto path = dir.file("versions.gguf");
  auto gguf = small_gguf();
  gguf.version = 2;
  gguf.write(path);
  CHECK(GgufFile(path).version() == 2);
  CHECK(GgufFile(path).dequantize("blk.0.w").sizes() == std::vector<int64_t>{1, 64});

  gguf.version = 1;
  gguf.write(path);
  CHECK_THROWS_WITH(GgufFile(path), Contains(path) && Contains("version 1"));
  gguf.version = 4;
  gguf.write(path);
  CHECK_THROWS_WITH(GgufFile(path), Contains(path) && Contains("unsupported GGUF version 4"));
  gguf.version = 0x03000000;  // version 3 written big-endian
  gguf.write(path);
  CHECK_THROWS_WITH(GgufFile(path), Contains(path) && Contains("big-endian"));
}

TEST_CASE("GgufFile refuses broken files with an error naming the file and the field", "[gguf]") {
  TempDir dir;
  const auto path = dir.file("broken.gguf");
  const auto good = small_gguf().bytes();
  const auto refused = [&](const std::string& bytes) {
    GgufBuilder::write_bytes(path, bytes);
    try {
      GgufFile file(path);
    } catch (const c10::Error& error) {
      return std::string(error.what_without_backtrace());
    }
    return std::string("opened without an error");
  };

  SECTION("every truncation of a good file") {
    GgufBuilder::write_bytes(path, good);
    REQUIRE(GgufFile(path).tensors().size() == 1);
    for (std::size_t length = 0; length < good.size(); ++length) {
      INFO("the first " << length << " bytes of " << good.size());
      const auto message = refused(good.substr(0, length));
      CHECK_THAT(message, Contains(path));
      CHECK_THAT(message, Contains("truncated") || Contains("magic") || Contains("past the end") ||
                              Contains("cannot fit"));
    }
  }
  SECTION("a wrong magic") {
    auto bytes = good;
    bytes[0] = 'g';
    CHECK_THAT(refused(bytes), Contains(path) && Contains("magic 'GGUF'"));
    CHECK_THAT(refused("GGML"), Contains("magic 'GGUF'"));
  }
  SECTION("an unknown metadata value type") {
    auto bytes = good;
    patch_after(bytes, "general.architecture", 0, uint32_t{13});
    CHECK_THAT(refused(bytes), Contains(path) && Contains("metadata key 'general.architecture'") &&
                                   Contains("unknown value type 13"));
  }
  SECTION("an unknown array element type") {
    GgufBuilder gguf;
    gguf.add("tokenizer.ggml.scores", {GgufArray{GgufValueType::kFloat32, {{1.0f}}}});
    auto bytes = gguf.bytes();
    patch_after(bytes, "tokenizer.ggml.scores", 4, uint32_t{99});
    CHECK_THAT(refused(bytes), Contains("'tokenizer.ggml.scores'") && Contains("array element type") &&
                                   Contains("unknown value type 99"));
  }
  SECTION("an unknown tensor type") {
    auto bytes = good;
    // The name, its dimension count (4 bytes) and two dimensions (16 bytes), then the type.
    patch_after(bytes, "blk.0.w", 4 + 16, uint32_t{4});
    CHECK_THAT(refused(bytes), Contains(path) && Contains("tensor 'blk.0.w'") && Contains("unknown ggml type 4"));
  }
  SECTION("absurd counts and lengths are refused before anything is allocated for them") {
    auto tensors = good;
    tensors.replace(kTensorCountAt, 8, le_bytes(uint64_t{1} << 60));
    CHECK_THAT(refused(tensors), Contains("tensor count") && Contains("cannot fit"));
    auto metadata = good;
    metadata.replace(kMetadataCountAt, 8, le_bytes(~uint64_t{0}));
    CHECK_THAT(refused(metadata), Contains("metadata count") && Contains("cannot fit"));
    auto key = good;
    key.replace(24, 8, le_bytes(uint64_t{1} << 62));
    CHECK_THAT(refused(key), Contains("metadata #0: key") && Contains("runs past the end of the file"));
    auto value = good;
    patch_after(value, "general.architecture", 4, uint64_t{1000000});
    CHECK_THAT(refused(value), Contains("metadata key 'general.architecture'") && Contains("a string of 1000000 bytes"));
    GgufBuilder gguf;
    gguf.add("tokenizer.ggml.tokens", gguf_string_array({"a", "b"}));
    auto array = gguf.bytes();
    patch_after(array, "tokenizer.ggml.tokens", 8, uint64_t{1} << 40);
    CHECK_THAT(refused(array), Contains("'tokenizer.ggml.tokens': array length") && Contains("cannot fit"));
  }
  SECTION("arrays nested without end") {
    std::string bytes = "GGUF" + le_bytes(uint32_t{3}) + le_bytes(uint64_t{0}) + le_bytes(uint64_t{1}) +
                        GgufBuilder::string_bytes("deep") + le_bytes(uint32_t{9});
    for (int level = 0; level < 40; ++level) bytes += le_bytes(uint32_t{9}) + le_bytes(uint64_t{1});
    CHECK_THAT(refused(bytes), Contains("metadata key 'deep'") && Contains("nested deeper than 16"));
  }
  SECTION("a bool other than 0 or 1") {
    GgufBuilder gguf;
    gguf.add("tokenizer.ggml.add_bos_token", {true});
    auto bytes = gguf.bytes();
    patch_after(bytes, "tokenizer.ggml.add_bos_token", 4, uint8_t{2});
    CHECK_THAT(refused(bytes), Contains("'tokenizer.ggml.add_bos_token'") && Contains("0 or 1, got 2"));
  }
  SECTION("duplicate keys and tensor names") {
    auto keys = small_gguf();
    keys.add("general.architecture", {std::string("gpt2")});
    CHECK_THAT(refused(keys.bytes()), Contains("metadata key 'general.architecture' appears more than once"));
    auto names = small_gguf();
    names.add_tensor("blk.0.w", GgmlType::kF32, {1}, f32_bytes({1.0f}));
    CHECK_THAT(refused(names.bytes()), Contains("tensor 'blk.0.w' appears more than once"));
  }
  SECTION("general.alignment of another type, or not a power of two") {
    auto wrong_type = small_gguf();
    wrong_type.add("general.alignment", {uint64_t{32}});
    CHECK_THAT(refused(wrong_type.bytes()), Contains("'general.alignment'") && Contains("must be a uint32") &&
                                                Contains("uint64 32"));
    auto odd = small_gguf();
    odd.add("general.alignment", {uint32_t{48}});
    CHECK_THAT(refused(odd.bytes()), Contains("'general.alignment'") && Contains("power of two, got 48"));
    auto zero = small_gguf();
    zero.add("general.alignment", {uint32_t{0}});
    CHECK_THAT(refused(zero.bytes()), Contains("power of two, got 0"));
  }
  SECTION("dimensions: too many, overflowing, or not whole blocks") {
    auto many = small_gguf();
    many.add_tensor("many", GgmlType::kF32, {1, 1, 1, 1, 1}, f32_bytes({1.0f}));
    CHECK_THAT(refused(many.bytes()), Contains("tensor 'many'") && Contains("5 dimensions"));
    auto huge = small_gguf();
    huge.add_tensor("huge", GgmlType::kF32, {uint64_t{1} << 32, uint64_t{1} << 32, 0}, "");
    CHECK_THAT(refused(huge.bytes()), Contains("tensor 'huge'") && Contains("overflow"));
    auto signed_dim = small_gguf();
    signed_dim.add_tensor("negative", GgmlType::kF32, {~uint64_t{0}}, "");
    CHECK_THAT(refused(signed_dim.bytes()), Contains("tensor 'negative'") && Contains("overflow"));
    auto bytes = small_gguf();
    bytes.add_tensor("bytes", GgmlType::kF64, {uint64_t{1} << 61}, "");
    CHECK_THAT(refused(bytes.bytes()), Contains("tensor 'bytes'") && Contains("overflows 64 bits"));
    auto partial = small_gguf();
    partial.add_tensor("partial", GgmlType::kQ4_1, {48}, std::string(40, '\0'));
    CHECK_THAT(refused(partial.bytes()), Contains("tensor 'partial'") && Contains("ne[0] = 48") &&
                                             Contains("Q4_1 blocks of 32"));
  }
  SECTION("tensor data past the end, misaligned, or overlapping another tensor") {
    auto past = small_gguf();
    past.add_tensor("past", GgmlType::kF32, {8}, f32_bytes(std::vector<float>(8, 1.0f))).offset = 4096;
    auto past_bytes = past.bytes();
    past_bytes.resize(past_bytes.size() - 28);  // the builder wrote the 32 bytes where the table says
    CHECK_THAT(refused(past_bytes), Contains(path) && Contains("tensor 'past'") &&
                                        Contains("run past the end of the data section"));
    auto short_data = small_gguf().bytes();
    short_data.pop_back();
    CHECK_THAT(refused(short_data), Contains("tensor 'blk.0.w'") && Contains("run past the end"));
    auto misaligned = small_gguf();
    misaligned.add_tensor("misaligned", GgmlType::kF32, {1}, f32_bytes({1.0f})).offset = 68;
    CHECK_THAT(refused(misaligned.bytes()), Contains("tensor 'misaligned'") && Contains("offset 68") &&
                                                Contains("multiple of the alignment 32"));
    auto overlapping = small_gguf();
    overlapping.add_tensor("overlapping", GgmlType::kF32, {1}, f32_bytes({1.0f})).offset = 32;
    CHECK_THAT(refused(overlapping.bytes()), Contains("tensor 'overlapping'") && Contains("overlap tensor 'blk.0.w'"));
    auto offset_overflow = small_gguf();
    offset_overflow.add_tensor("wrap", GgmlType::kF32, {1}, "").offset = ~uint64_t{0} - 31;
    CHECK_THAT(refused(offset_overflow.bytes()), Contains("tensor 'wrap'") && Contains("run past the end"));
  }
}
