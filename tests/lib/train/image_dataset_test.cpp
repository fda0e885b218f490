#include "train/image_dataset.h"

#include <catch2/catch.hpp>

#include "models/vit.h"
#include "train/trainer.h"

using namespace capaboost;

namespace {

ImageExamples two_images(int64_t channels) {
  ImageExamples examples;
  examples.images.push_back(torch::arange(16 * channels).reshape({4, 4, channels}).to(torch::kUInt8));
  examples.images.push_back(torch::full({4, 4, channels}, 255, torch::kUInt8));
  examples.labels = {0, 2};
  return examples;
}

ImageProcessorOptions gray(int64_t size) { return ImageProcessorOptions().size(size).image_mean({0.5}).image_std({0.5}); }

}  // namespace

TEST_CASE("image batches are the processor's normalised pixels with their labels", "[train][image]") {
  ImageDataset dataset(two_images(1), gray(4), ImageDatasetOptions().num_labels(3));
  const Batch batch = dataset.collate({1, 0}, BatchPadding::kLongest);
  const auto& pixels = batch.input("pixel_values");
  REQUIRE(pixels.sizes() == torch::IntArrayRef({2, 1, 4, 4}));
  CHECK(pixels[0].eq(1.0f).all().item<bool>());                           // 255 → (1 − 0.5) / 0.5
  CHECK(pixels[1][0][0][0].item<float>() == Approx(-1.0f));         // 0 → −1
  CHECK(pixels[1][0][3][3].item<float>() == Approx(15.0 / 255.0 / 0.5 - 1.0));
  CHECK(batch.labels.equal(torch::tensor({2, 0}, torch::kInt64)));
  CHECK(batch.indices == std::vector<int64_t>{1, 0});
}

TEST_CASE("images are converted to the backbone's channels and size", "[train][image]") {
  const std::vector<double> half{0.5, 0.5, 0.5};
  ImageDataset rgb(two_images(1), ImageProcessorOptions().size(4).image_mean(half).image_std(half));
  const auto replicated = rgb.collate({0}, BatchPadding::kLongest).input("pixel_values");  // (1, 3, 4, 4)
  CHECK(replicated[0][0].equal(replicated[0][2]));

  ImageExamples colour;
  colour.images.push_back(torch::tensor({255, 0, 0, 0, 255, 0}, torch::kUInt8).reshape({1, 2, 3}));
  colour.labels = {0};
  ImageDataset luma(colour, ImageProcessorOptions().size(0).image_mean({0.0}).image_std({1.0}).rescale_factor(1.0));
  const auto l = luma.collate({0}, BatchPadding::kLongest).input("pixel_values");  // (1, 1, 1, 2)
  CHECK(l[0][0][0][0].item<float>() == 76.0f);   // PIL's L of pure red: 255·0.299 = 76.2
  CHECK(l[0][0][0][1].item<float>() == 150.0f);  // of pure green: 255·0.587 = 149.7

  ImageDataset resized(two_images(1), gray(2));
  const auto small = resized.collate({1}, BatchPadding::kLongest).input("pixel_values");
  CHECK(small.sizes() == torch::IntArrayRef({1, 1, 2, 2}));
  CHECK(small.eq(1.0f).all().item<bool>());  // a constant image stays constant
}

TEST_CASE("crop-and-flip augmentation is seeded and keeps batch shapes", "[train][image]") {
  ImageExamples examples;
  for (int i = 0; i < 8; ++i) {
    examples.images.push_back(torch::randint(1, 256, {8, 8, 1}, torch::kUInt8));
    examples.labels.push_back(i % 2);
  }
  const auto options = ImageDatasetOptions().augmentation(ImageAugmentation::kCropFlip).seed(5);
  ImageDataset first(examples, gray(8), options), second(examples, gray(8), options),
      other(examples, gray(8), ImageDatasetOptions(options).seed(6)), plain(examples, gray(8));
  const std::vector<int64_t> all{0, 1, 2, 3, 4, 5, 6, 7};
  const auto a = first.collate(all, BatchPadding::kLongest).input("pixel_values");
  CHECK(a.sizes() == torch::IntArrayRef({8, 1, 8, 8}));
  CHECK(a.equal(second.collate(all, BatchPadding::kLongest).input("pixel_values")));
  CHECK_FALSE(a.equal(other.collate(all, BatchPadding::kLongest).input("pixel_values")));
  CHECK_FALSE(a.equal(plain.collate(all, BatchPadding::kLongest).input("pixel_values")));
  // The next batch draws new crops: augmentation differs between epochs.
  CHECK_FALSE(a.equal(first.collate(all, BatchPadding::kLongest).input("pixel_values")));
  CHECK_THROWS_WITH(parse_image_augmentation("flip"), Catch::Contains("crop_flip"));
}

TEST_CASE("the image scorer reports top-1 accuracy and rejects labels outside the head", "[train][image]") {
  ImageDataset dataset(two_images(1), gray(4), ImageDatasetOptions().num_labels(3));
  auto scorer = dataset.scorer();
  const Batch batch = dataset.collate({0, 1}, BatchPadding::kLongest);
  scorer->add(torch::tensor({{0.9f, 0.0f, 0.1f}, {0.8f, 0.1f, 0.1f}}), batch);  // right, wrong
  const Score score = scorer->finish();
  CHECK(score.metrics.at("accuracy") == Approx(0.5));
  CHECK(score.selection == Approx(0.5));
  CHECK_THROWS_WITH(ImageDataset(two_images(1), gray(4), ImageDatasetOptions().num_labels(2)),
                    Catch::Contains("label 2"));
}

TEST_CASE("a ViT trains on image batches and, without model selection, reports its last epoch", "[train][image]") {
  torch::manual_seed(0);
  // Two classes told apart by brightness.
  ImageExamples examples;
  for (int i = 0; i < 64; ++i) {
    examples.images.push_back(torch::full({8, 8, 1}, i % 2 == 0 ? 40 : 210, torch::kUInt8) +
                              torch::randint(0, 30, {8, 8, 1}, torch::kUInt8));
    examples.labels.push_back(i % 2);
  }
  const auto data_of = [&](bool last) {
    TrainingData data;
    data.train = std::make_shared<ImageDataset>(examples, gray(8), ImageDatasetOptions().num_labels(2));
    data.eval = data.train;
    data.eval_is_test = true;
    data.report_last_epoch = last;
    return data;
  };
  VitForImageClassification model(VitOptions().hidden_size(16).num_hidden_layers(1).num_attention_heads(2)
                                      .intermediate_size(16).image_size(8).patch_size(4).num_channels(1).num_labels(2));
  const auto options = TrainerOptions().epochs(4).batch_size(16).lr(3e-3).progress(false).measure_ranks(false);
  const TrainResult last = train_model(*model, data_of(true), options);
  REQUIRE(last.ok());
  CHECK(last.best_epoch == 4);
  CHECK(last.epochs.size() == 4);
  CHECK(last.epochs[0].eval.empty());  // not scored: only the last epoch is
  CHECK(last.test.at("accuracy") > 0.9);
  // Images have no tokens: the run's rate is in examples, 64 per epoch.
  CHECK(last.train_tokens_per_second == 0);
  CHECK(last.train_examples_per_second > 0);
  CHECK(last.epochs[0].train_examples == 64);
}
