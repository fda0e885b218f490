#pragma once
// The GGUF checkpoint format of llama.cpp (its docs/gguf.md), versions 2 and 3, little-endian: a header
// ("GGUF", version, tensor count, metadata count), the metadata (key, typed value), the tensor table
// (name, dimensions ne0 ne1 … with ne0 the fastest-varying, ggml type, offset into the data section),
// padding to `general.alignment` (default 32), then the data section, each tensor at an offset that is
// a multiple of the alignment. A decoder model ships as one such file: its architecture, hyper-parameters
// and tokenizer in the metadata, its weights in the tensors, most of them in quantised blocks.
//
//   GgufFile file("SmolLM2-135M-Instruct.Q4_1.gguf");
//   file.string("general.architecture");                 // "llama"
//   file.integer("llama.embedding_length");              // 576
//   file.strings("tokenizer.ggml.tokens");               // 49,152 tokens
//   const GgufTensorInfo& info = file.tensor_info("token_embd.weight");
//   info.type;                                           // GgmlType::kQ8_0
//   info.shape;                                          // {49152, 576}: PyTorch order, ne reversed
//   torch::Tensor embedding = file.dequantize("token_embd.weight");        // (49152, 576) float32
//   torch::Tensor blocks = file.raw_blocks("blk.0.attn_q.weight");          // (576, 360) uint8, Q4_1
//   torch::Tensor w = dequantize_blocks(blocks, GgmlType::kQ4_1, 576);     // (576, 576) float32
//
// Opening validates the whole file before anything is returned: magic, version, byte order, every count
// against the bytes left (a string or array cannot claim more than the file holds), value and tensor
// types, duplicate keys and tensor names, dimensions (at most 4, a whole number of blocks per row, no
// overflow), and each tensor's bytes aligned, inside the file and clear of every other tensor. Every
// error is a c10::Error naming the file and the field. Strings are kept as stored (GGUF says UTF-8; no
// check is made here).

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "checkpoint/ggml_type.h"
#include "checkpoint/gguf_dequantize.h"
#include "checkpoint/gguf_value.h"

namespace capaboost {

class MappedFile;

/// One entry of the tensor table.
struct GgufTensorInfo {
  std::string name;
  GgmlType type = GgmlType::kF32;
  /// PyTorch order: the file's dimensions (ne) reversed, e.g. token_embd.weight (49152, 576) for ne
  /// [576, 49152]. Empty for a tensor of no dimensions (one element).
  std::vector<int64_t> shape;
  uint64_t offset = 0;  ///< bytes from the start of the data section (GgufFile::data_offset)
  uint64_t bytes = 0;   ///< bytes the tensor occupies

  /// Elements per row: the last PyTorch dimension (ne0), 1 for no dimensions.
  int64_t columns() const;
  /// Rows: the product of the other dimensions.
  int64_t rows() const;
};

/// A GGUF file, memory-mapped and validated when opened. Copies share the mapping.
class GgufFile {
 public:
  explicit GgufFile(const std::string& path);

  const std::string& path() const { return path_; }
  uint32_t version() const { return version_; }
  /// `general.alignment`, or 32 when absent.
  uint64_t alignment() const { return alignment_; }
  /// Where the data section starts, in bytes from the start of the file.
  uint64_t data_offset() const { return data_offset_; }

  // --- metadata: each accessor throws, naming the file, the key and what it found, when the key is
  // missing or holds another type.

  /// The keys in file order.
  const std::vector<std::string>& keys() const { return keys_; }
  bool has(const std::string& key) const { return metadata_.count(key) > 0; }
  const GgufValue& value(const std::string& key) const;
  const std::string& string(const std::string& key) const;
  /// Any integer type as int64 (a uint64 above 2^63 − 1 throws).
  int64_t integer(const std::string& key) const;
  /// float32 or float64, as double.
  double real(const std::string& key) const;
  bool boolean(const std::string& key) const;
  /// An array of strings.
  std::vector<std::string> strings(const std::string& key) const;
  /// An array of any integer type, as int64.
  std::vector<int64_t> integers(const std::string& key) const;
  /// An array of float32 or float64, as double.
  std::vector<double> reals(const std::string& key) const;

  // --- tensors

  /// The tensor table in file order.
  const std::vector<GgufTensorInfo>& tensors() const { return tensors_; }
  bool has_tensor(const std::string& name) const { return tensor_index_.count(name) > 0; }
  /// Throws naming the file when there is no such tensor.
  const GgufTensorInfo& tensor_info(const std::string& name) const;
  /// The tensor as float32 in PyTorch shape order, equal bit for bit to the `gguf` package's
  /// dequantisation; throws naming the tensor and its type for a type dequantize_blocks refuses.
  torch::Tensor dequantize(const std::string& name) const;
  /// The tensor's bytes untouched, (rows, bytes per row) uint8 (a tensor of any known type), for
  /// dequantize_blocks. It views the mapped file, which is private copy-on-write (writing to it never
  /// changes the file), and keeps the mapping alive; `.clone()` for memory of its own.
  torch::Tensor raw_blocks(const std::string& name) const;

 private:
  std::string path_;
  std::shared_ptr<MappedFile> mapping_;
  uint32_t version_ = 0;
  uint64_t alignment_ = 32;
  uint64_t data_offset_ = 0;
  std::vector<std::string> keys_;
  std::unordered_map<std::string, GgufValue> metadata_;
  std::vector<GgufTensorInfo> tensors_;
  std::unordered_map<std::string, std::size_t> tensor_index_;
};

}  // namespace capaboost
