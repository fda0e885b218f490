#pragma once
// Which data a run reads, as a hash that goes into its key.

#include <nlohmann/json.hpp>

#include <string>

namespace capaboost::harness {

/// The data root: `explicit_root` when given, else $CAPABOOST_DATA_DIR, else "../shared/data".
std::string resolve_data_root(const std::string& explicit_root);

/// The folder of a task under the data root ("cola" → "CoLA", "sst2-10k" → "SST-2", …).
std::string task_folder(const std::string& task);

/// SHA-256 over the names and bytes of every file of the run's task folder; "none" when the run has
/// no task; "missing:<folder>" when the folder is absent (the run itself then fails with the
/// download step).
std::string data_fingerprint(const nlohmann::json& parameters, const std::string& data_root);

}  // namespace capaboost::harness
