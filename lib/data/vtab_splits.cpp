#include "data/vtab_splits.h"

#include <fstream>
#include <sstream>

#include "data/data_root.h"
#include "data/image_file.h"
#include "data/permutation.h"
#include "util/closest_match.h"
#include "util/sha256.h"

namespace capaboost {
namespace {

namespace fs = std::filesystem;

ImageExamples first(const ImageExamples& examples, int64_t limit) {
  if (limit <= 0 || limit >= examples.size()) return examples;
  std::vector<int64_t> indices(static_cast<size_t>(limit));
  for (int64_t i = 0; i < limit; ++i) indices[static_cast<size_t>(i)] = i;
  return examples.subset(indices);
}

// The two stages from train (800), val (200) and test.
VtabSplits assemble(VtabStage stage, const ImageExamples& train, const ImageExamples& val, const ImageExamples& test) {
  VtabSplits splits;
  splits.stage = stage;
  if (stage == VtabStage::kSelect) {
    splits.train = train;
    splits.eval = val;
    splits.test = test;
  } else {
    splits.train = train;
    splits.train.images.insert(splits.train.images.end(), val.images.begin(), val.images.end());
    splits.train.labels.insert(splits.train.labels.end(), val.labels.begin(), val.labels.end());
    splits.eval = test;
    splits.eval_is_test = true;
  }
  return splits;
}

std::string stage_description(VtabStage stage) {
  return stage == VtabStage::kSelect
             ? "VTAB-1k selection stage: train on 800, choose the epoch on 200, score on the test split"
             : "VTAB-1k final stage: train on all 1,000, the last epoch scored on the test split";
}

// One list file: "<relative image path> <label>" per line. Every line is checked; only the first `limit`
// images are decoded (0: all). `listed` receives the number of lines.
ImageExamples read_list(const fs::path& folder, const std::string& name, nlohmann::json& files, int64_t limit = 0,
                        int64_t* listed = nullptr) {
  const fs::path path = folder / name;
  std::ifstream in(path);
  if (!in) throw MissingDataError("VTAB-1k: " + path.string() + " is missing (" + name +
                                  " of NOAH's VTAB-1k layout); see docs/data-and-protocols.md for the download step");
  std::stringstream content;
  content << in.rdbuf();
  files.push_back({{"file", path.string()}, {"sha256", sha256_hex(content.str())}});
  ImageExamples examples;
  std::string line;
  int64_t number = 0, entries = 0;
  while (std::getline(content, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::istringstream fields(line);
    std::string image;
    int64_t label = -1;
    std::string extra;
    fields >> image >> label;
    TORCH_CHECK(!fields.fail() && label >= 0 && !(fields >> extra), "VTAB-1k: ", path.string(), " line ", number,
                ": expected \"<image path> <label>\", got \"", line, "\"");
    if (limit <= 0 || entries < limit) {
      examples.images.push_back(read_image_file((folder / image).string()));
      examples.labels.push_back(label);
    }
    ++entries;
  }
  if (listed) *listed = entries;
  return examples;
}

void require_size(const ImageExamples& examples, int64_t expected, const fs::path& file) {
  TORCH_CHECK(examples.size() == expected, "VTAB-1k: ", file.string(), " lists ", examples.size(),
              " images; VTAB-1k's is ", expected);
}

}  // namespace

VtabStage parse_vtab_stage(const std::string& name) {
  if (name == "select") return VtabStage::kSelect;
  if (name == "final") return VtabStage::kFinal;
  TORCH_CHECK(false, "unknown VTAB-1k stage '", name, "'", did_you_mean(name, vtab_stage_names()),
              "; choose select (800 train / 200 val) or final (1,000 train, test)");
}

std::string to_string(VtabStage stage) { return stage == VtabStage::kSelect ? "select" : "final"; }

std::vector<std::string> vtab_stage_names() { return {"select", "final"}; }

VtabSplits vtab1k_from_pool(const ImageExamples& pool, const ImageExamples& test, VtabStage stage, uint64_t seed,
                            int64_t test_limit, const nlohmann::json& source) {
  TORCH_CHECK(pool.size() >= kVtabTrain + kVtabVal, "VTAB-1k: the labelled pool has ", pool.size(),
              " images; the protocol draws ", kVtabTrain + kVtabVal);
  const auto order = seeded_permutation(pool.size(), seed);
  const std::vector<int64_t> train(order.begin(), order.begin() + kVtabTrain);
  const std::vector<int64_t> val(order.begin() + kVtabTrain, order.begin() + kVtabTrain + kVtabVal);
  VtabSplits splits = assemble(stage, pool.subset(train), pool.subset(val), first(test, test_limit));
  std::string drawn;
  for (int64_t i = 0; i < kVtabTrain + kVtabVal; ++i) drawn += std::to_string(order[static_cast<size_t>(i)]) + ",";
  splits.provenance = {{"protocol", "vtab-1k"},
                       {"stage", to_string(stage)},
                       {"description", stage_description(stage)},
                       {"source", source},
                       {"split_seed", seed},
                       {"pool_size", pool.size()},
                       {"drawn_indices_sha256", sha256_hex(drawn)},
                       {"train_size", splits.train.size()},
                       {"eval_size", splits.eval.size()},
                       {"test_size", splits.eval_is_test ? splits.eval.size() : splits.test.size()},
                       {"test_limited", test_limit > 0 && test_limit < test.size()}};
  return splits;
}

std::vector<std::string> vtab1k_list_files(VtabStage stage) {
  if (stage == VtabStage::kSelect) return {"train800.txt", "val200.txt", "test.txt"};
  return {"train800val200.txt", "test.txt"};
}

VtabSplits read_vtab1k_folder(const fs::path& folder, VtabStage stage, int64_t test_limit) {
  nlohmann::json files = nlohmann::json::array();
  int64_t listed_test = 0;
  const ImageExamples test = read_list(folder, "test.txt", files, test_limit, &listed_test);
  VtabSplits splits;
  if (stage == VtabStage::kSelect) {
    const ImageExamples train = read_list(folder, "train800.txt", files);
    require_size(train, kVtabTrain, folder / "train800.txt");
    const ImageExamples val = read_list(folder, "val200.txt", files);
    require_size(val, kVtabVal, folder / "val200.txt");
    splits = assemble(stage, train, val, test);
  } else {
    const ImageExamples all = read_list(folder, "train800val200.txt", files);
    require_size(all, kVtabTrain + kVtabVal, folder / "train800val200.txt");
    splits = assemble(stage, all, ImageExamples{}, test);
  }
  splits.provenance = {{"protocol", "vtab-1k"},
                       {"stage", to_string(stage)},
                       {"description", stage_description(stage)},
                       {"folder", folder.string()},
                       {"files", files},
                       {"train_size", splits.train.size()},
                       {"eval_size", splits.eval.size()},
                       {"test_size", splits.eval_is_test ? splits.eval.size() : splits.test.size()},
                       {"test_limited", test.size() < listed_test}};
  return splits;
}

}  // namespace capaboost
