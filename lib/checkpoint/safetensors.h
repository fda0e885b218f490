#pragma once
// The safetensors checkpoint format (Hugging Face): an 8-byte little-endian header length N, N bytes of
// JSON {name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {str: str}}, then the
// raw little-endian tensor data; offsets are relative to the end of the header.

#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "checkpoint/mapped_file.h"

namespace capaboost {

/// The safetensors name of a dtype ("F32", "BF16", "I64", …); throws for dtypes the format lacks.
std::string safetensors_dtype_name(torch::ScalarType dtype);
/// The dtype of a safetensors name; throws, listing the supported names, for an unknown one.
torch::ScalarType parse_safetensors_dtype(const std::string& name);

/// One tensor's header entry.
struct SafetensorsEntry {
  std::string name;
  torch::ScalarType dtype;
  std::vector<int64_t> shape;
  uint64_t begin = 0;  ///< byte offset into the data section
  uint64_t end = 0;    ///< one past the last byte
};

/// A safetensors file, memory-mapped and fully validated when opened: header length against file size,
/// well-formed JSON, known dtypes, shape × dtype size equal to each byte range, offsets in range,
/// contiguous, non-overlapping and covering the data section exactly, no duplicate names. Every error
/// names the file and, where there is one, the tensor. Copies share the mapping.
class SafetensorsFile {
 public:
  explicit SafetensorsFile(const std::string& path);

  const std::string& path() const { return path_; }
  /// The `__metadata__` map (empty when absent).
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  /// Tensor names in byte order (std::string order).
  std::vector<std::string> names() const;
  bool contains(const std::string& name) const { return entries_.count(name) > 0; }
  /// Header entry of `name`; throws naming the file when absent.
  const SafetensorsEntry& entry(const std::string& name) const;

  /// The tensor `name`. It views the mapped file when its bytes are aligned for its dtype (a copy
  /// otherwise) and keeps the mapping alive; the mapping is private copy-on-write, so writing to the
  /// tensor never changes the file. Call `.clone()` for memory of its own.
  torch::Tensor tensor(const std::string& name) const;
  /// Every tensor, by name.
  std::map<std::string, torch::Tensor> tensors() const;

 private:
  std::string path_;
  std::shared_ptr<MappedFile> mapping_;
  uint64_t data_start_ = 0;  // 8 + header length
  std::map<std::string, std::string> metadata_;
  std::map<std::string, SafetensorsEntry> entries_;
};

/// Writes `tensors` to `path` as Hugging Face does: names sorted, data contiguous in that order, header
/// padded with spaces to a multiple of 8 bytes, `__metadata__` always carrying "format": "pt" (what
/// transformers checks before loading) plus `metadata`. Tensors are written as stored (any device,
/// any layout: they are made contiguous on the CPU first). The write is atomic (temporary file + rename).
void save_safetensors(const std::string& path, const std::map<std::string, torch::Tensor>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

}  // namespace capaboost
