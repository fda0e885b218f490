#pragma once
// One metadata value of a GGUF file (llama.cpp's docs/gguf.md, "gguf_metadata_value_type"): a scalar
// of one of eleven types, a string (bytes, as stored), or an array of values of one element type
// (arrays of arrays included). GgufFile reads them; its typed accessors (string, integer, strings, …)
// are the usual way to get at one.
//
//   const GgufValue& value = file.value("tokenizer.ggml.token_type");
//   value.type();                                    // GgufValueType::kArray
//   std::get<GgufArray>(value.value).element_type;   // GgufValueType::kInt32
//   value.describe();                                // "array of 49152 int32"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace capaboost {

/// The value types with GGUF's numeric codes.
enum class GgufValueType : uint32_t {
  kUint8 = 0,
  kInt8 = 1,
  kUint16 = 2,
  kInt16 = 3,
  kUint32 = 4,
  kInt32 = 5,
  kFloat32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kUint64 = 10,
  kInt64 = 11,
  kFloat64 = 12,
};

/// "uint8", "int32", "float32", "bool", "string", "array", …
std::string to_string(GgufValueType type);

struct GgufValue;

/// An array: the element type (known even when the array is empty) and the elements, each of that type.
struct GgufArray {
  GgufValueType element_type = GgufValueType::kUint8;
  std::vector<GgufValue> elements;
};

/// A metadata value. The variant's alternatives are in the order of GgufValueType's codes, so the
/// alternative's index is the value's type.
struct GgufValue {
  std::variant<uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, float, bool, std::string, GgufArray, uint64_t,
               int64_t, double>
      value;

  GgufValueType type() const { return static_cast<GgufValueType>(value.index()); }
  /// What the value is, for error messages: "uint32 7", "string 'llama'", "array of 3 string", with long
  /// strings cut short.
  std::string describe() const;
};

}  // namespace capaboost
