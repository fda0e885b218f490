#pragma once
// Labelled images as a training split: each batch is resized to the backbone's image size, converted
// to its channel count, augmented (training split only, seeded) and normalised by its processor into
// "pixel_values" (B, C, S, S); the scorer reports top-1 accuracy, VTAB's metric.
//
//   auto train = std::make_shared<ImageDataset>(splits.train, *backbone.processor.image,
//                                               ImageDatasetOptions().augmentation(ImageAugmentation::kCropFlip).seed(7));

#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "data/image_examples.h"
#include "data/image_processor.h"
#include "train/training_split.h"

namespace capaboost {

enum class ImageAugmentation {
  kNone,      ///< "none": VTAB-1k's default as NOAH runs it (resize and normalise only)
  kCropFlip,  ///< "crop_flip": pad by side/8 with zeros, crop a random side × side window, flip half the images
};
/// "none" or "crop_flip" (errors name both).
ImageAugmentation parse_image_augmentation(const std::string& name);
std::string to_string(ImageAugmentation augmentation);
std::vector<std::string> image_augmentation_names();

struct ImageDatasetOptions {
  TORCH_ARG(ImageAugmentation, augmentation) = ImageAugmentation::kNone;
  /// Seeds the augmentation draws; batches are augmented in the order they are collated.
  TORCH_ARG(uint64_t, seed) = 42;
  /// The number of classes the head predicts; a label outside [0, num_labels) is an error.
  TORCH_ARG(int64_t, num_labels) = 0;
};

class ImageDataset : public TrainingSplit {
 public:
  ImageDataset(ImageExamples examples, ImageProcessorOptions processing, ImageDatasetOptions options = {});

  int64_t size() const override { return examples_.size(); }
  /// pixel_values (B, C, S, S) float32 and labels (B) int64; `padding` is meaningless for images.
  Batch collate(const std::vector<int64_t>& indices, BatchPadding padding) const override;
  std::unique_ptr<SplitScorer> scorer() const override;

  const std::vector<int64_t>& labels() const { return examples_.labels; }

 private:
  // image: uint8 (H, W, C) → uint8 (S, S, C') in the backbone's size and channel count.
  torch::Tensor conform(const torch::Tensor& image) const;
  // images: uint8 (B, S, S, C) → the same, randomly cropped and flipped.
  torch::Tensor augment(const torch::Tensor& images) const;

  ImageExamples examples_;
  ImageProcessor processor_;
  ImageDatasetOptions options_;
  mutable std::mutex generator_mutex_;
  mutable std::mt19937_64 generator_;
};

}  // namespace capaboost
