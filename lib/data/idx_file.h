#pragma once
// IDX files, the format MNIST and Fashion-MNIST ship in (as Debian's dataset-fashion-mnist installs
// them, gzip-compressed): a big-endian header — two zero bytes, a type code (0x08 = unsigned byte), the
// number of dimensions — then one big-endian 32-bit size per dimension, then the values in row-major
// order.
//
//   torch::Tensor images = read_idx_file("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz");
//   // images: uint8 (60000, 28, 28)

#include <torch/torch.h>

#include <string>

namespace capaboost {

/// The unsigned-byte IDX file at `path` (read through zlib, so plain and .gz files both work) as a
/// uint8 tensor of its declared dimensions. Throws, naming the file, on a wrong magic number, another
/// element type, a truncated body or trailing bytes.
torch::Tensor read_idx_file(const std::string& path);

}  // namespace capaboost
