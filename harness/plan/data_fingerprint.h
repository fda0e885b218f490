#pragma once
// Which data a run reads, as a hash that goes into its key.

#include <nlohmann/json.hpp>

#include <string>

namespace capaboost::harness {

/// The data root: `explicit_root` when given, else $CAPABOOST_DATA_DIR, else "../shared/data".
std::string resolve_data_root(const std::string& explicit_root);

/// SHA-256 over the names and bytes of every file of the run's task folder (the task plugin's
/// data_folder); "none" when the run has no task; "missing:<folder>" when the folder is absent (the
/// run itself then fails with the download step).
std::string data_fingerprint(const nlohmann::json& config, const std::string& data_root);

}  // namespace capaboost::harness
