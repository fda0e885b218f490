#pragma once
// The run record: what one run of a spec produced, as the executor writes it, the store keeps it and
// the reports read it. One schema, one place: results/runs/<key>.json is RunRecord::to_json().
//
// Schema 3 (this code): schema 2 plus "digest", the record's seal (store/record_digest.h), and
// "tuned_state_sha256", the SHA-256 of the tuned state kept beside it (runs/<key>.safetensors), if any.
// Schema 2: key, schema_version, spec, label, name, measure, profile, status ("ok" |
// "failed"), reason, config (every effective parameter), data_fingerprint, model_fingerprint,
// code_version, metrics, details, wall_time_s, peak_memory_mb, finished_at, provenance.
// Schema 1 records (no schema_version; "parameters" instead of "config", defaults not filled) still
// load; records of a newer schema are refused with a message naming the file.

#include <nlohmann/json.hpp>

#include <string>

namespace capaboost::harness {

inline constexpr int kRunRecordSchema = 3;
/// The first schema whose records carry their digest: a record of this schema or newer without one is damaged.
inline constexpr int kFirstSealedRecordSchema = 3;

enum class RunStatus {
  kOk,
  kFailed,  ///< the measure threw (a diverged loss, a missing file, …); `reason` says why
};
std::string to_string(RunStatus status);

/// Now, UTC, ISO 8601 to the second ("2026-11-26T08:00:00Z"): the time records, claims and cluster
/// submissions carry.
std::string utc_now();
struct RunRecord;
/// When the run started, in seconds since the epoch: its finished_at (utc_now's form) less its wall time;
/// 0 when finished_at does not parse.
double run_started_at_seconds(const RunRecord& record);
/// Parses "ok" / "failed"; anything else is an error naming `source`.
RunStatus parse_run_status(const std::string& text, const std::string& source);

struct RunRecord {
  std::string key;
  int schema_version = kRunRecordSchema;
  std::string spec, label, name, measure, profile;
  RunStatus status = RunStatus::kFailed;
  std::string reason;
  nlohmann::json config = nlohmann::json::object();  ///< the resolved configuration the key hashes
  std::string data_fingerprint, model_fingerprint, code_version;
  nlohmann::json metrics = nlohmann::json::object();
  nlohmann::json details = nlohmann::json::object();
  double wall_time_s = 0;
  double peak_memory_mb = 0;
  std::string finished_at;
  /// SHA-256 (hex) of runs/<key>.safetensors as the run wrote it; empty when the run kept no tuned state.
  std::string tuned_state_sha256;
  nlohmann::json provenance = nlohmann::json::object();

  bool ok() const { return status == RunStatus::kOk; }

  /// Writes the current schema.
  nlohmann::json to_json() const;
  /// Reads schema 1, 2 or 3 (its "digest" is the store's to check: store/record_digest.h); `source` (the file) names the record in errors: a missing key or status, an
  /// unknown status, or a schema newer than this program.
  static RunRecord from_json(const nlohmann::json& json, const std::string& source);
};

}  // namespace capaboost::harness
