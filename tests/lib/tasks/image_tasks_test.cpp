// The image task plugins: Fashion-MNIST-1k (the offline proxy) and the VTAB-1k tasks of Table 5.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "data/data_root.h"
#include "data/image_file.h"
#include "params/parameters.h"
#include "support/temp_dir.h"
#include "tasks/task_registry.h"
#include "lib/tasks/task_test_support.h"
#include "train/image_dataset.h"

using namespace capaboost;
using capaboost::test::task_config;

namespace {

InputProcessor gray_28() {
  InputProcessor processor;
  processor.image = ImageProcessorOptions().size(28).image_mean({0.5}).image_std({0.5});
  return processor;
}

}  // namespace

TEST_CASE("Table 5's twelve VTAB-1k tasks are registered with their class counts", "[tasks][image]") {
  const std::vector<std::pair<std::string, int64_t>> expected = {
      {"CIFAR-100", 100}, {"DTD", 47},      {"Flower102", 102},  {"Pets", 37},       {"SVHN", 10},     {"Eurosat", 10},
      {"Resisc45", 45},   {"Clevr-Count", 8}, {"Clevr-Dist", 6}, {"DMLab", 6},       {"dSpr-Ori", 16}, {"sNORB-Azim", 18}};
  for (const auto& [name, classes] : expected) {
    CHECK(find_task(name).head.num_labels == classes);
    CHECK(find_task(name).data_folder.rfind("vtab-1k/", 0) == 0);
  }
}

TEST_CASE("Fashion-MNIST-1k follows VTAB-1k's protocol on the real dataset", "[tasks][image][fashion-mnist]") {
  const TaskSpec& task = find_task("Fashion-MNIST-1k");
  if (!std::filesystem::exists(std::filesystem::path(task.data_folder) / "t10k-labels-idx1-ubyte.gz")) {
    WARN("skipped: dataset-fashion-mnist is not installed (make deps)");
    return;
  }
  const auto final_stage = task.prepare(task_config(task, {}), gray_28(), "");
  CHECK(final_stage.data.train->size() == 1000);
  CHECK(final_stage.data.eval->size() == 10000);  // the official test split
  CHECK(final_stage.data.eval_is_test);
  CHECK(final_stage.data.report_last_epoch);
  // Every class of the official test split: 1,000 images each.
  const auto& test = dynamic_cast<const ImageDataset&>(*final_stage.data.eval);
  CHECK(torch::bincount(torch::tensor(test.labels())).eq(1000).all().item<bool>());
  const Batch batch = final_stage.data.train->collate({0, 1}, BatchPadding::kLongest);
  CHECK(batch.input("pixel_values").sizes() == torch::IntArrayRef({2, 1, 28, 28}));
  CHECK(batch.input("pixel_values").min().item<float>() >= -1.0f);

  const auto select = task.prepare(task_config(task, {{"vtab_stage", "select"}, {"test_limit", 500}}), gray_28(), "");
  CHECK(select.data.train->size() == 800);
  CHECK(select.data.eval->size() == 200);
  CHECK(select.data.test->size() == 500);
  CHECK_FALSE(select.data.report_last_epoch);
  CHECK(select.provenance.at("split_seed") == 42);

  CHECK_THROWS_WITH(task.prepare(task_config(task, {}), InputProcessor{}, ""), Catch::Contains("reads no images"));
}

TEST_CASE("a VTAB-1k task without its folder names the folder and the download step", "[tasks][image]") {
  capaboost::testing::TempDir root;
  const TaskSpec& task = find_task("DTD");
  try {
    task.require_data(task_config(task, {}), root.path().string());
    FAIL("expected MissingDataError");
  } catch (const MissingDataError& error) {
    CHECK_THAT(error.what(), Catch::Contains("vtab-1k/dtd") && Catch::Contains("train800val200.txt") &&
                                 Catch::Contains("docs/data-and-protocols.md"));
  }
}

namespace {
// A NOAH-layout VTAB-1k folder: one grey `size`×`size` image a.png, its 1,000 train800val200 rows
// cycling through `classes` labels, and `test_lines` as test.txt.
void write_vtab_folder(const std::filesystem::path& folder, int64_t size, int classes, const std::string& test_lines) {
  std::filesystem::create_directories(folder);
  write_png_file((folder / "a.png").string(), torch::full({size, size, 3}, 90, torch::kUInt8));
  std::string lines;
  for (int i = 0; i < 1000; ++i) lines += "a.png " + std::to_string(i % classes) + "\n";
  std::ofstream((folder / "train800val200.txt").string()) << lines;
  std::ofstream((folder / "test.txt").string()) << test_lines;
}
}  // namespace

TEST_CASE("a VTAB-1k task reads a NOAH-layout folder under the data root", "[tasks][image]") {
  capaboost::testing::TempDir root;
  write_vtab_folder(root.path() / "vtab-1k" / "eurosat", 64, 10, "a.png 3\na.png 4\n");
  const TaskSpec& task = find_task("Eurosat");
  task.require_data(task_config(task, {}), root.path().string());
  InputProcessor rgb_32;
  rgb_32.image = ImageProcessorOptions().size(32);
  const auto prepared = task.prepare(task_config(task, {{"augmentation", "crop_flip"}}), rgb_32, root.path().string());
  CHECK(prepared.data.train->size() == 1000);
  CHECK(prepared.data.eval->size() == 2);
  const auto pixels = prepared.data.eval->collate({0}, BatchPadding::kLongest).input("pixel_values");
  CHECK(pixels.sizes() == torch::IntArrayRef({1, 3, 32, 32}));  // resized from 64×64
  CHECK(pixels.sub(90.0 / 255.0 / 0.5 - 1.0).abs().max().item<float>() < 1e-5);
  CHECK(prepared.provenance.at("augmentation") == "crop_flip");
}

TEST_CASE("image_normalization imagenet normalises with ImageNet's statistics, as the paper's appendix says",
          "[tasks][image]") {
  capaboost::testing::TempDir root;
  write_vtab_folder(root.path() / "vtab-1k" / "dtd", 32, 47, "a.png 3\n");
  const TaskSpec& task = find_task("DTD");
  // The default keeps the backbone's own statistics (and stays out of run keys: recorded runs used them).
  const auto normalization = std::find_if(task.parameters.begin(), task.parameters.end(),
                                          [](const ParameterDef& def) { return def.name == "image_normalization"; });
  REQUIRE(normalization != task.parameters.end());
  CHECK(normalization->fallback == "checkpoint");
  CHECK_FALSE(normalization->keyed_at_default);
  InputProcessor rgb_32;
  rgb_32.image = ImageProcessorOptions().size(32);  // mean = std = 0.5, as ViT-B/16-in21k's processor
  const auto own = task.prepare(task_config(task, {}), rgb_32, root.path().string());
  const auto imagenet = task.prepare(task_config(task, {{"image_normalization", "imagenet"}}), rgb_32, root.path().string());
  const double x = 90.0 / 255.0;
  const auto own_pixels = own.data.eval->collate({0}, BatchPadding::kLongest).input("pixel_values");
  CHECK(own_pixels.sub(x / 0.5 - 1.0).abs().max().item<float>() < 1e-5);
  const auto pixels = imagenet.data.eval->collate({0}, BatchPadding::kLongest).input("pixel_values");
  const std::vector<double> mean = {0.485, 0.456, 0.406}, std = {0.229, 0.224, 0.225};
  for (int64_t c = 0; c < 3; ++c) {
    INFO("channel " << c);
    CHECK(pixels[0][c].sub((x - mean[c]) / std[c]).abs().max().item<float>() < 1e-5);
  }
  CHECK(imagenet.provenance.at("processor").at("normalization") == "imagenet");
  CHECK(imagenet.provenance.at("processor").at("image_mean") == nlohmann::json(mean));
  // ImageNet's statistics are per RGB channel: a one-channel backbone is refused, not silently misread.
  CHECK_THROWS_WITH(task.prepare(task_config(task, {{"image_normalization", "imagenet"}}), gray_28(), root.path().string()),
                    Catch::Contains("RGB"));
}
