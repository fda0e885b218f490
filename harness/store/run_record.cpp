#include "store/run_record.h"

#include <fmt/format.h>

#include <ctime>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace capaboost::harness {
namespace {

std::string text_field(const nlohmann::json& json, const char* name) {
  return json.contains(name) && json[name].is_string() ? json[name].get<std::string>() : std::string();
}

double number_field(const nlohmann::json& json, const char* name) {
  return json.contains(name) && json[name].is_number() ? json[name].get<double>() : 0.0;
}

nlohmann::json object_field(const nlohmann::json& json, const char* name) {
  return json.contains(name) && json[name].is_object() ? json[name] : nlohmann::json::object();
}

}  // namespace

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

double run_started_at_seconds(const RunRecord& record) {
  std::tm parts{};
  std::istringstream in(record.finished_at);
  in >> std::get_time(&parts, "%Y-%m-%dT%H:%M:%SZ");
  if (in.fail()) return 0;
  return static_cast<double>(timegm(&parts)) - record.wall_time_s;
}

std::string to_string(RunStatus status) { return status == RunStatus::kOk ? "ok" : "failed"; }

RunStatus parse_run_status(const std::string& text, const std::string& source) {
  if (text == "ok") return RunStatus::kOk;
  if (text == "failed") return RunStatus::kFailed;
  throw std::runtime_error(fmt::format("{}: unknown run status '{}' (expected ok or failed); delete the record to "
                                       "rerun that run",
                                       source, text));
}

nlohmann::json RunRecord::to_json() const {
  return {{"key", key},
          {"schema_version", kRunRecordSchema},
          {"spec", spec},
          {"label", label},
          {"name", name},
          {"measure", measure},
          {"profile", profile},
          {"status", to_string(status)},
          {"reason", reason},
          {"config", config},
          {"data_fingerprint", data_fingerprint},
          {"model_fingerprint", model_fingerprint},
          {"code_version", code_version},
          {"metrics", metrics},
          {"details", details},
          {"wall_time_s", wall_time_s},
          {"peak_memory_mb", peak_memory_mb},
          {"finished_at", finished_at},
          {"tuned_state_sha256", tuned_state_sha256},
          {"provenance", provenance}};
}

RunRecord RunRecord::from_json(const nlohmann::json& json, const std::string& source) {
  if (!json.is_object()) throw std::runtime_error(fmt::format("{}: a run record is a JSON object", source));
  RunRecord record;
  record.schema_version = json.contains("schema_version") && json["schema_version"].is_number_integer()
                              ? json["schema_version"].get<int>()
                              : 1;
  if (record.schema_version > kRunRecordSchema) {
    throw std::runtime_error(fmt::format("{}: run record schema {} is newer than this program's ({}); update "
                                         "capaboost or move the record away",
                                         source, record.schema_version, kRunRecordSchema));
  }
  record.key = text_field(json, "key");
  if (record.key.empty() || !json.contains("status")) {
    throw std::runtime_error(fmt::format("{}: not a run record (no key or status); delete it", source));
  }
  record.status = parse_run_status(text_field(json, "status"), source);
  record.spec = text_field(json, "spec");
  record.label = text_field(json, "label");
  record.name = text_field(json, "name");
  record.measure = text_field(json, "measure");
  record.profile = text_field(json, "profile");
  record.reason = text_field(json, "reason");
  // Schema 1 kept the spec's parameters (defaults not filled) under "parameters".
  record.config = object_field(json, record.schema_version == 1 ? "parameters" : "config");
  record.data_fingerprint = text_field(json, "data_fingerprint");
  record.model_fingerprint = text_field(json, "model_fingerprint");
  record.code_version = text_field(json, "code_version");
  record.metrics = object_field(json, "metrics");
  record.details = object_field(json, "details");
  record.wall_time_s = number_field(json, "wall_time_s");
  record.peak_memory_mb = number_field(json, "peak_memory_mb");
  record.finished_at = text_field(json, "finished_at");
  record.tuned_state_sha256 = text_field(json, "tuned_state_sha256");
  record.provenance = object_field(json, "provenance");
  return record;
}

}  // namespace capaboost::harness
