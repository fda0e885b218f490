#pragma once
// Labelled images as a task loads them, before any backbone-specific processing: each image keeps its
// own size and channel count (VTAB's images vary), so resizing and channel conversion happen once the
// backbone's processor is known (train/image_dataset.h).

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace capaboost {

struct ImageExamples {
  std::vector<torch::Tensor> images;  ///< each uint8 (H, W, C), C = 1 or 3
  std::vector<int64_t> labels;        ///< class ids in [0, num_classes)

  int64_t size() const { return static_cast<int64_t>(images.size()); }
  /// The examples at `indices`, in that order.
  ImageExamples subset(const std::vector<int64_t>& indices) const {
    ImageExamples out;
    for (const int64_t i : indices) {
      out.images.push_back(images.at(static_cast<size_t>(i)));
      out.labels.push_back(labels.at(static_cast<size_t>(i)));
    }
    return out;
  }
};

}  // namespace capaboost
