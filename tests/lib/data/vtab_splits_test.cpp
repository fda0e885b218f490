#include "data/vtab_splits.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <set>

#include "data/data_root.h"
#include "data/image_file.h"
#include "data/permutation.h"
#include "support/temp_dir.h"

using namespace capaboost;

namespace {

// n one-pixel images whose value and label are their index (mod 256 / mod 10).
ImageExamples numbered(int64_t n) {
  ImageExamples examples;
  for (int64_t i = 0; i < n; ++i) {
    examples.images.push_back(torch::full({1, 1, 1}, i % 256, torch::kUInt8));
    examples.labels.push_back(i);
  }
  return examples;
}

std::set<int64_t> labels_of(const ImageExamples& examples) {
  return {examples.labels.begin(), examples.labels.end()};
}

// A NOAH-layout folder: one image per class, lists of the given sizes naming them in turn.
void write_noah_folder(const std::filesystem::path& folder, int64_t train, int64_t val, int64_t test) {
  std::filesystem::create_directories(folder / "images");
  for (int label = 0; label < 3; ++label) {
    write_png_file((folder / "images" / (std::to_string(label) + ".png")).string(),
                   torch::full({4, 5, 3}, 50 * label, torch::kUInt8));
  }
  const auto list = [&](const std::string& name, int64_t count) {
    std::ofstream out(folder / name);
    for (int64_t i = 0; i < count; ++i) out << "images/" << i % 3 << ".png " << i % 3 << "\n";
  };
  list("train800.txt", train);
  list("val200.txt", val);
  list("train800val200.txt", train + val);
  list("test.txt", test);
}

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const std::exception& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("VTAB-1k from a pool draws 800 + 200 disjoint images by the seeded permutation", "[data][vtab]") {
  const auto pool = numbered(1500), test = numbered(300);
  const auto order = seeded_permutation(1500, 42);
  const auto select = vtab1k_from_pool(pool, test, VtabStage::kSelect, 42, 0, {{"dataset", "numbered"}});
  REQUIRE(select.train.size() == 800);
  REQUIRE(select.eval.size() == 200);
  CHECK(select.test.size() == 300);
  CHECK_FALSE(select.eval_is_test);
  CHECK(select.train.labels.front() == order[0]);
  CHECK(select.eval.labels.front() == order[800]);
  std::set<int64_t> all = labels_of(select.train);
  for (const int64_t label : select.eval.labels) all.insert(label);
  CHECK(all.size() == 1000);  // disjoint

  const auto final_stage = vtab1k_from_pool(pool, test, VtabStage::kFinal, 42, 100, {{"dataset", "numbered"}});
  CHECK(final_stage.train.size() == 1000);
  CHECK(labels_of(final_stage.train) == all);  // the same 1,000 images train the final model
  CHECK(final_stage.eval_is_test);
  CHECK(final_stage.eval.size() == 100);  // test_limit
  CHECK(final_stage.provenance.at("test_limited").get<bool>());
  CHECK(final_stage.provenance.at("stage") == "final");

  const auto other_seed = vtab1k_from_pool(pool, test, VtabStage::kSelect, 7, 0, {});
  CHECK(labels_of(other_seed.train) != labels_of(select.train));
  CHECK_THAT(error_of([&] { vtab1k_from_pool(numbered(999), test, VtabStage::kFinal, 42, 0, {}); }),
             Catch::Contains("999"));
}

TEST_CASE("VTAB-1k reads NOAH's folder layout and checks its list sizes", "[data][vtab]") {
  capaboost::testing::TempDir dir;
  write_noah_folder(dir.path() / "dtd", 800, 200, 30);
  const auto select = read_vtab1k_folder(dir.path() / "dtd", VtabStage::kSelect, 0);
  CHECK(select.train.size() == 800);
  CHECK(select.eval.size() == 200);
  CHECK(select.test.size() == 30);
  CHECK(select.train.images[4].sizes() == torch::IntArrayRef({4, 5, 3}));
  CHECK(select.train.images[4][0][0][0].item<int>() == 50);  // images/1.png
  CHECK(select.train.labels[4] == 1);
  const auto final_stage = read_vtab1k_folder(dir.path() / "dtd", VtabStage::kFinal, 10);
  CHECK(final_stage.train.size() == 1000);
  CHECK(final_stage.eval.size() == 10);
  CHECK(final_stage.eval_is_test);
  CHECK(final_stage.provenance.at("files").size() == 2);

  write_noah_folder(dir.path() / "short", 799, 200, 5);
  CHECK_THAT(error_of([&] { read_vtab1k_folder(dir.path() / "short", VtabStage::kSelect, 0); }),
             Catch::Contains("train800.txt") && Catch::Contains("799"));
  std::ofstream(dir.path() / "short" / "test.txt") << "images/0.png\n";
  CHECK_THAT(error_of([&] { read_vtab1k_folder(dir.path() / "short", VtabStage::kFinal, 0); }),
             Catch::Contains("test.txt line 1"));
  CHECK_THROWS_AS(read_vtab1k_folder(dir.path() / "absent", VtabStage::kFinal, 0), MissingDataError);
  CHECK_THAT(error_of([] { parse_vtab_stage("finale"); }), Catch::Contains("final"));
}
