#pragma once
// A spec's runs as an MLflow experiment, written straight into MLflow's file store (the layout of
// mlflow.store.tracking.file_store, which `mlflow ui --backend-store-uri DIR` and MlflowClient("file://DIR")
// read): one experiment per spec × profile, one MLflow run per run record.
//
//   DIR/<experiment id>/meta.yaml                    name: "<spec> · <profile>"
//   DIR/<experiment id>/<run id>/meta.yaml           run_name "<label> · <task> · seed <seed>", status FINISHED
//   DIR/<experiment id>/<run id>/params/<name>       the resolved config, one file a parameter
//   DIR/<experiment id>/<run id>/metrics/<name>      "timestamp value step" lines: the record's final metrics
//                                                    (at its last step) and its curves (train/loss, eval/…)
//   DIR/<experiment id>/<run id>/tags/<name>         capaboost.key, .build, .commit, .device, .label, .seed, .spec
//
// Ids are derived, not random: the experiment's from its name, a run's from its key, so exporting again
// replaces what an earlier export wrote instead of adding duplicates.

#include <string>
#include <vector>

#include "store/record_store.h"

namespace capaboost::harness {

struct MlflowExport {
  std::string experiment_id;
  std::string experiment_dir;
  int runs = 0;           ///< runs written
  int with_curves = 0;    ///< of which with their per-step curves
};

/// Writes `records` (finished runs; failed ones are skipped) as the experiment `experiment_name` under
/// `store_dir`. A record whose curves are missing or damaged is an error naming the file
/// (store/run_scalars.h); records made before runs kept curves are exported with their final metrics only.
MlflowExport export_mlflow(const std::string& store_dir, const std::string& experiment_name,
                           const std::vector<RunRecord>& records, const RecordStore& store);

}  // namespace capaboost::harness
