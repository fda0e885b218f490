#pragma once
// Runs as TensorBoard runs: each finished run's curves (store/run_scalars.h) as one event file
// (tracking/tensorboard_events.h) in a folder named by its row label, task, seed and key, so that
// TensorBoard's run selector groups a sweep's runs by row:
//
//   <log_dir>/LoRA_r=8/sst2-seed42-1a2b3c4d5e6f/events.out.tfevents.<start>.capaboost
//
// Used by `capaboost run --tensorboard DIR` as runs finish and by `capaboost tensorboard SPEC DIR` for
// runs already recorded.

#include <string>

#include "store/record_store.h"

namespace capaboost::harness {

/// `record`'s folder under a log dir: "<label slug>/<task>-seed<seed>-<first 12 of the key>" (no task:
/// "seed<seed>-…"), every part a path name (util/path_name.h).
std::string tensorboard_run_folder(const RunRecord& record);

/// Writes `record`'s event file under `log_dir` (created when missing), replacing the one an earlier
/// export wrote; returns its path. Throws, naming the file, when the record's curves are missing or
/// damaged (store/run_scalars.h).
std::string write_tensorboard_run(const std::string& log_dir, const RecordStore& store, const RunRecord& record);

}  // namespace capaboost::harness
