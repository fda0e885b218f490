#pragma once
// Writing small GGUF files for the tests, byte by byte as llama.cpp's docs/gguf.md lays them out: the
// header, the metadata in the order added, the tensor table, zero padding to the alignment, then each
// tensor's bytes at the next aligned offset. Tests that need a broken file take bytes() and change it.
//
//   GgufBuilder gguf;
//   gguf.add("general.architecture", GgufValue{std::string("llama")});
//   gguf.add_tensor("norm.weight", GgmlType::kF32, {4}, f32_bytes({1, 2, 3, 4}));
//   gguf.write(dir.file("model.gguf"));

#include <c10/util/Half.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "checkpoint/ggml_type.h"
#include "checkpoint/gguf_value.h"

namespace capaboost::testing {

/// The little-endian bytes of `value`.
template <typename T>
std::string le_bytes(T value) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::string bytes(sizeof(T), '\0');
  std::memcpy(bytes.data(), &value, sizeof(T));
  return bytes;
}

/// The IEEE half bits of `value` (rounded to nearest).
inline uint16_t half_bits(float value) { return c10::Half(value).x; }

/// float32 values as stored by a GGUF F32 tensor.
inline std::string f32_bytes(const std::vector<float>& values) {
  std::string bytes;
  for (const float value : values) bytes += le_bytes(value);
  return bytes;
}

class GgufBuilder {
 public:
  struct Tensor {
    std::string name;
    GgmlType type;
    std::vector<uint64_t> ne;  ///< ggml order: ne[0] varies fastest
    std::string data;
    std::optional<uint64_t> offset;  ///< where the table says it is; default: the next aligned offset
  };

  uint32_t version = 3;
  /// The padding used to lay out the data (the file declares it only through a general.alignment key).
  uint64_t alignment = 32;

  void add(const std::string& key, const GgufValue& value) { metadata_.push_back({key, value}); }
  /// Adds a tensor with `data` as its bytes; returns its entry to adjust (e.g. its offset).
  Tensor& add_tensor(const std::string& name, GgmlType type, std::vector<uint64_t> ne, std::string data) {
    tensors_.push_back({name, type, std::move(ne), std::move(data), std::nullopt});
    return tensors_.back();
  }

  /// The whole file.
  std::string bytes() const {
    std::string out = "GGUF" + le_bytes(version) + le_bytes<uint64_t>(tensors_.size()) +
                      le_bytes<uint64_t>(metadata_.size());
    for (const auto& [key, value] : metadata_) {
      out += string_bytes(key) + le_bytes(static_cast<uint32_t>(value.type()));
      append_value(out, value);
    }
    std::vector<uint64_t> offsets;
    uint64_t next = 0;
    for (const auto& tensor : tensors_) {
      offsets.push_back(tensor.offset.value_or(next));
      next = aligned(offsets.back() + tensor.data.size());
      out += string_bytes(tensor.name) + le_bytes<uint32_t>(tensor.ne.size());
      for (const uint64_t n : tensor.ne) out += le_bytes(n);
      out += le_bytes(static_cast<uint32_t>(tensor.type)) + le_bytes(offsets.back());
    }
    if (tensors_.empty()) return out;
    out.resize(aligned(out.size()), '\0');
    const std::size_t data_start = out.size();
    for (std::size_t i = 0; i < tensors_.size(); ++i) {
      const std::size_t at = data_start + offsets[i];
      if (out.size() < at + tensors_[i].data.size()) out.resize(at + tensors_[i].data.size(), '\0');
      out.replace(at, tensors_[i].data.size(), tensors_[i].data);
    }
    return out;
  }

  void write(const std::string& path) const { write_bytes(path, bytes()); }

  static void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out.flush()) throw std::runtime_error("cannot write " + path);
  }

  static std::string string_bytes(const std::string& text) { return le_bytes<uint64_t>(text.size()) + text; }

 private:
  uint64_t aligned(uint64_t position) const { return (position + alignment - 1) / alignment * alignment; }

  static void append_value(std::string& out, const GgufValue& value) {
    std::visit(
        [&out](const auto& held) {
          using Held = std::decay_t<decltype(held)>;
          if constexpr (std::is_same_v<Held, std::string>) {
            out += string_bytes(held);
          } else if constexpr (std::is_same_v<Held, GgufArray>) {
            out += le_bytes(static_cast<uint32_t>(held.element_type)) + le_bytes<uint64_t>(held.elements.size());
            for (const auto& element : held.elements) append_value(out, element);
          } else if constexpr (std::is_same_v<Held, bool>) {
            out += static_cast<char>(held ? 1 : 0);
          } else {
            out += le_bytes(held);
          }
        },
        value.value);
  }

  std::vector<std::pair<std::string, GgufValue>> metadata_;
  std::vector<Tensor> tensors_;
};

}  // namespace capaboost::testing
