#pragma once
// A run's curves read back from the store: runs/<key>.scalars.csv (train/training_scalars.h), checked
// against the digest its sealed record names, so an edited or truncated file is never drawn.
//
//   if (has_run_scalars(record)) for (const ScalarPoint& point : read_run_scalars(store, record)) …

#include <string>
#include <vector>

#include "store/record_store.h"
#include "train/training_scalars.h"

namespace capaboost::harness {

/// Whether `record` names a scalars file (finetune runs recorded since the curves were kept).
bool has_run_scalars(const RunRecord& record);

/// The curves of `record`. Throws, naming the file and the fix, when the record names none, the file is
/// missing, its SHA-256 is not the record's, or it does not parse.
std::vector<ScalarPoint> read_run_scalars(const RecordStore& store, const RunRecord& record);

}  // namespace capaboost::harness
