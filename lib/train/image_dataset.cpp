#include "train/image_dataset.h"

#include "metrics/classification_metrics.h"
#include "util/closest_match.h"

namespace capaboost {
namespace {

class AccuracyScorer : public SplitScorer {
 public:
  explicit AccuracyScorer(const std::vector<int64_t>& labels) : labels_(labels) {}

  void add(const torch::Tensor& outputs, const Batch& batch) override {
    const auto count = static_cast<int64_t>(batch.indices.size());
    TORCH_CHECK(outputs.dim() == 2 && outputs.size(0) == count, "image accuracy: outputs ", outputs.sizes(),
                " do not match the batch's ", count, " images");
    const auto classes = outputs.argmax(1).contiguous();  // (B) int64
    for (int64_t i = 0; i < count; ++i) {
      predicted_.push_back(classes.data_ptr<int64_t>()[i]);
      expected_.push_back(labels_.at(static_cast<size_t>(batch.indices[static_cast<size_t>(i)])));
    }
  }

  Score finish() override {
    Score score;
    score.metrics["accuracy"] = accuracy(predicted_, expected_);
    score.selection = score.metrics["accuracy"];
    return score;
  }

 private:
  const std::vector<int64_t>& labels_;
  std::vector<int64_t> predicted_, expected_;
};

// PIL's convert("L"): ITU-R 601-2 luma in 16-bit fixed point, rounded.
torch::Tensor to_gray(const torch::Tensor& rgb) {  // (H, W, 3) uint8 → (H, W, 1)
  const auto wide = rgb.to(torch::kInt32);
  const auto luma = (wide.select(2, 0) * 19595 + wide.select(2, 1) * 38470 + wide.select(2, 2) * 7471 + 0x8000) / 65536;
  return luma.to(torch::kUInt8).unsqueeze(2);
}

}  // namespace

ImageAugmentation parse_image_augmentation(const std::string& name) {
  if (name == "none") return ImageAugmentation::kNone;
  if (name == "crop_flip") return ImageAugmentation::kCropFlip;
  TORCH_CHECK(false, "unknown image augmentation '", name, "'", did_you_mean(name, image_augmentation_names()),
              "; choose none (VTAB-1k's default) or crop_flip");
}

std::string to_string(ImageAugmentation augmentation) {
  return augmentation == ImageAugmentation::kNone ? "none" : "crop_flip";
}

std::vector<std::string> image_augmentation_names() { return {"none", "crop_flip"}; }

ImageDataset::ImageDataset(ImageExamples examples, ImageProcessorOptions processing, ImageDatasetOptions options)
    : examples_(std::move(examples)), processor_(std::move(processing)), options_(options), generator_(options.seed()) {
  TORCH_CHECK(examples_.images.size() == examples_.labels.size(), "ImageDataset: ", examples_.images.size(),
              " images but ", examples_.labels.size(), " labels");
  for (size_t i = 0; i < examples_.images.size(); ++i) {
    const auto& image = examples_.images[i];
    TORCH_CHECK(image.scalar_type() == torch::kUInt8 && image.dim() == 3 && (image.size(2) == 1 || image.size(2) == 3),
                "ImageDataset: image ", i, " must be uint8 (H, W, 1 or 3), got ", image.scalar_type(), " ",
                image.sizes());
    const int64_t label = examples_.labels[i];
    TORCH_CHECK(label >= 0 && (options_.num_labels() == 0 || label < options_.num_labels()), "ImageDataset: image ", i,
                " has label ", label, " outside the task's ", options_.num_labels(), " classes");
  }
}

torch::Tensor ImageDataset::conform(const torch::Tensor& image) const {
  torch::Tensor out = image;
  const int64_t want = processor_.channels();
  if (out.size(2) == 3 && want == 1) out = to_gray(out);
  if (out.size(2) == 1 && want == 3) out = out.expand({-1, -1, 3});  // gray as RGB, as PIL's convert("RGB")
  TORCH_CHECK(out.size(2) == want, "ImageDataset: cannot turn ", image.size(2), "-channel images into the ",
              want, " channels the backbone reads");
  return processor_.resize(out.unsqueeze(0).contiguous()).squeeze(0);
}

torch::Tensor ImageDataset::augment(const torch::Tensor& images) const {
  const int64_t batch = images.size(0), high = images.size(1), wide = images.size(2);
  const int64_t pad = std::max<int64_t>(1, std::min(high, wide) / 8);
  namespace F = torch::nn::functional;
  // (B, S, S, C) → (B, S + 2p, S + 2p, C), zero borders.
  const auto padded = F::pad(images.permute({0, 3, 1, 2}), F::PadFuncOptions({pad, pad, pad, pad})).permute({0, 2, 3, 1});
  std::vector<torch::Tensor> out;
  std::lock_guard<std::mutex> lock(generator_mutex_);
  for (int64_t b = 0; b < batch; ++b) {
    // Modulo of the engine's output: mt19937_64's sequence is fixed by the standard, distributions are not.
    const auto top = static_cast<int64_t>(generator_() % static_cast<uint64_t>(2 * pad + 1));
    const auto left = static_cast<int64_t>(generator_() % static_cast<uint64_t>(2 * pad + 1));
    const bool flip = (generator_() & 1u) != 0;
    auto crop = padded[b].slice(0, top, top + high).slice(1, left, left + wide);  // (S, S, C)
    out.push_back(flip ? crop.flip({1}) : crop);
  }
  return torch::stack(out);
}

Batch ImageDataset::collate(const std::vector<int64_t>& indices, BatchPadding) const {
  std::vector<torch::Tensor> images;
  std::vector<int64_t> labels;
  for (const int64_t index : indices) {
    TORCH_CHECK(index >= 0 && index < size(), "ImageDataset: index ", index, " outside the split's ", size(), " images");
    images.push_back(conform(examples_.images[static_cast<size_t>(index)]));
    labels.push_back(examples_.labels[static_cast<size_t>(index)]);
  }
  for (const auto& image : images) {
    TORCH_CHECK(image.sizes() == images.front().sizes(), "ImageDataset: images of sizes ", images.front().sizes(),
                " and ", image.sizes(), " in one batch; the backbone's processor must resize them (its size is 0)");
  }
  torch::Tensor stacked = torch::stack(images);  // (B, S, S, C) uint8
  if (options_.augmentation() == ImageAugmentation::kCropFlip) stacked = augment(stacked);
  Batch batch;
  batch.inputs["pixel_values"] = processor_.pixel_values(stacked);  // (B, C, S, S)
  batch.labels = torch::tensor(labels, torch::kInt64);
  batch.examples = static_cast<int64_t>(indices.size());
  batch.indices = indices;
  return batch;
}

std::unique_ptr<SplitScorer> ImageDataset::scorer() const { return std::make_unique<AccuracyScorer>(examples_.labels); }

}  // namespace capaboost
