#include "tracking/mlflow_export.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>

#include "store/record_build.h"
#include "store/run_scalars.h"
#include "util/atomic_file.h"
#include "util/path_name.h"
#include "util/sha256.h"

namespace capaboost::harness {

namespace fs = std::filesystem;

namespace {

// MLflow's own experiment ids are 18-digit decimal numbers; this one is derived from the name.
std::string experiment_id_of(const std::string& name) {
  const std::string digest = sha256_hex(name);
  return std::to_string(std::stoull(digest.substr(0, 15), nullptr, 16) % 900000000000000000ULL + 100000000000000000ULL);
}

// A YAML scalar in single quotes (a quote doubled): names and labels may hold ':' or '#'.
std::string yaml_quoted(const std::string& text) {
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("''") : std::string(1, c);
  return quoted + "'";
}

int64_t milliseconds(double seconds) { return static_cast<int64_t>(std::llround(seconds * 1000.0)); }

// Parameter and tag names become file names in the store: the config's own names already are path
// names; anything else is made one.
std::string file_name_of(const std::string& name) { return path_name_problem(name) ? path_name_slug(name) : name; }

std::string param_value(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

std::string metric_line(int64_t timestamp_ms, double value, int64_t step) {
  return fmt::format("{} {:.17g} {}\n", timestamp_ms, value, step);
}

void write_run(const fs::path& experiment_dir, const std::string& experiment_id, const RunRecord& record,
               const RecordStore& store, MlflowExport& summary) {
  // A run id is 32 characters in MLflow; the key's first 32 hex digits are as unique as the key.
  const std::string run_id = record.key.substr(0, 32);
  const fs::path run_dir = experiment_dir / run_id;
  // An earlier export of this run is replaced whole (its metrics files are appended to by nobody else).
  fs::remove_all(run_dir);
  fs::create_directories(run_dir / "artifacts");
  const double start = run_started_at_seconds(record);
  const std::string task = record.config.value("task", "");
  const std::string seed = record.config.contains("seed") ? param_value(record.config["seed"]) : "";
  const std::string run_name =
      fmt::format("{}{}{}", record.label.empty() ? record.name : record.label, task.empty() ? "" : " · " + task,
                  seed.empty() ? "" : " · seed " + seed);
  write_file_atomically((run_dir / "meta.yaml").string(),
                        fmt::format("artifact_uri: {}\nend_time: {}\nentry_point_name: ''\nexperiment_id: '{}'\n"
                                    "lifecycle_stage: active\nrun_id: {}\nrun_name: {}\nrun_uuid: {}\nsource_name: ''\n"
                                    "source_type: 4\nsource_version: ''\nstart_time: {}\nstatus: 3\ntags: []\n"
                                    "user_id: capaboost\n",
                                    yaml_quoted("file://" + fs::absolute(run_dir / "artifacts").string()),
                                    milliseconds(start + record.wall_time_s), experiment_id, run_id,
                                    yaml_quoted(run_name), run_id, milliseconds(start)));
  fs::create_directories(run_dir / "params");
  for (const auto& [name, value] : record.config.items()) {
    write_file_atomically((run_dir / "params" / file_name_of(name)).string(), param_value(value));
  }
  const RecordBuild build = record_build(record);
  const std::map<std::string, std::string> tags = {
      {"mlflow.runName", run_name},
      {"mlflow.user", "capaboost"},
      {"capaboost.key", record.key},
      {"capaboost.spec", record.spec},
      {"capaboost.profile", record.profile},
      {"capaboost.label", record.label},
      {"capaboost.seed", seed},
      {"capaboost.build", build.id},
      {"capaboost.commit", record.provenance.value("git_sha", "")},
      {"capaboost.device", record.provenance.value("device", "")},
  };
  fs::create_directories(run_dir / "tags");
  for (const auto& [name, value] : tags) write_file_atomically((run_dir / "tags" / name).string(), value);

  // Metric histories: the curves first, then the record's final metrics at the run's last step.
  std::map<std::string, std::string> histories;
  int64_t last_step = 0;
  if (has_run_scalars(record)) {
    for (const ScalarPoint& point : read_run_scalars(store, record)) {
      histories[point.tag] += metric_line(milliseconds(start + point.seconds), point.value, point.step);
      last_step = std::max(last_step, point.step);
    }
    ++summary.with_curves;
  }
  for (const auto& [name, value] : record.metrics.items()) {
    if (!value.is_number()) continue;
    histories[file_name_of(name)] +=
        metric_line(milliseconds(start + record.wall_time_s), value.get<double>(), last_step);
  }
  for (const auto& [name, lines] : histories) {
    const fs::path file = run_dir / "metrics" / name;  // "train/loss" nests as MLflow's own store does
    fs::create_directories(file.parent_path());
    write_file_atomically(file.string(), lines);
  }
  ++summary.runs;
}

}  // namespace

MlflowExport export_mlflow(const std::string& store_dir, const std::string& experiment_name,
                           const std::vector<RunRecord>& records, const RecordStore& store) {
  MlflowExport summary;
  summary.experiment_id = experiment_id_of(experiment_name);
  const fs::path experiment_dir = fs::absolute(fs::path(store_dir) / summary.experiment_id);
  summary.experiment_dir = experiment_dir.string();
  fs::create_directories(experiment_dir);
  const fs::path meta = experiment_dir / "meta.yaml";
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch()).count();
  write_file_atomically(meta.string(), fmt::format("artifact_location: {}\ncreation_time: {}\nexperiment_id: '{}'\n"
                                                   "last_update_time: {}\nlifecycle_stage: active\nname: {}\n",
                                                   yaml_quoted("file://" + experiment_dir.string()), now_ms,
                                                   summary.experiment_id, now_ms, yaml_quoted(experiment_name)));
  for (const RunRecord& record : records) {
    if (record.ok()) write_run(experiment_dir, summary.experiment_id, record, store, summary);
  }
  return summary;
}

}  // namespace capaboost::harness
