#pragma once
// The VTAB-1k protocol (Zhai et al. 2019; the settings of NOAH that the paper's Table 5 follows): every
// task has 1,000 labelled training images, 800 for training and 200 for validation while choosing
// hyper-parameters, then all 1,000 train the final model, which is scored on the task's full official
// test split.
//
// Two stages, a task parameter of every VTAB task (`vtab_stage`):
//   select  train = the 800, eval = the 200 (best epoch chosen on them), test = the official test split
//   final   train = all 1,000; no held-out images remain to choose an epoch by, so the last epoch is
//           reported on the test split (eval is the test split, scored every epoch for the curve only)
//
// Sources:
//   - a NOAH-layout folder (what NOAH's VTAB-1k download script writes): <task>/train800.txt,
//     val200.txt, train800val200.txt and test.txt, one "<image path relative to the folder> <label>" per
//     line, beside the images;
//   - a labelled pool without VTAB's lists (the offline Fashion-MNIST proxy): 800 + 200 drawn from the
//     pool by a seeded permutation (data/permutation.h), test the official test split.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/image_examples.h"

namespace capaboost {

enum class VtabStage { kSelect, kFinal };
/// "select" or "final" (errors name both).
VtabStage parse_vtab_stage(const std::string& name);
std::string to_string(VtabStage stage);
std::vector<std::string> vtab_stage_names();

/// VTAB-1k's sizes.
inline constexpr int64_t kVtabTrain = 800;
inline constexpr int64_t kVtabVal = 200;

struct VtabSplits {
  VtabStage stage = VtabStage::kFinal;
  ImageExamples train, eval, test;
  /// Under `final`: eval is the test split and the last epoch is reported.
  bool eval_is_test = false;
  /// Where the splits came from, their sizes and digests, for run records.
  nlohmann::json provenance;
};

/// VTAB-1k from a labelled `pool` and its `test` split: permutation p of the pool seeded `seed`,
/// train = pool[p[0 .. 800)], val = pool[p[800 .. 1000)]. `test_limit` > 0 keeps the first that many test
/// images (smoke runs only: the paper's number needs the full split). `source` describes the data.
VtabSplits vtab1k_from_pool(const ImageExamples& pool, const ImageExamples& test, VtabStage stage, uint64_t seed,
                            int64_t test_limit, const nlohmann::json& source);

/// VTAB-1k from a NOAH-layout task folder (see above). Throws, naming the file and line, on a missing
/// list, a malformed line, a missing image or a list whose size is not VTAB-1k's.
VtabSplits read_vtab1k_folder(const std::filesystem::path& folder, VtabStage stage, int64_t test_limit);

/// The list files a NOAH-layout folder needs under `stage`.
std::vector<std::string> vtab1k_list_files(VtabStage stage);

}  // namespace capaboost
