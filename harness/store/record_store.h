#pragma once
// Run records: one JSON file per run under <results>/runs/, written atomically, plus an SQLite index
// that can always be rebuilt from them.

#include "store/run_record.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace capaboost::harness {

/// What the store found in one record file: the record, or why it cannot be used.
struct StoredRecord {
  std::string key;
  std::string path;
  std::optional<RunRecord> record;  ///< set when the file exists and passes every check
  /// Empty when usable (or absent); else why not: it does not parse (truncated), is not a record, its
  /// digest fails (store/record_digest.h), its key is not its file's name, its schema is newer.
  std::string problem;
  bool unsealed = false;  ///< usable, but written before seals (schema ≤ 2): nothing to check it against
};

class RecordStore {
 public:
  /// `results_dir` holds runs/ and index.sqlite; created when missing.
  explicit RecordStore(std::string results_dir);

  /// Writes `record`, sealed with its digest (store/record_digest.h), to runs/<key>.json via a temp file,
  /// fsync and rename (util/atomic_file.h), so a killed process leaves either the old state or the
  /// complete record. The index is not touched:
  /// worker processes and array tasks write records only, and one process indexes them (add_to_index).
  void write(const RunRecord& record);

  /// Adds (or replaces) `records` in the SQLite index, in one transaction; an index of older code is
  /// rebuilt from every record on disk instead. Only one process of a sweep calls this: the index uses
  /// a rollback journal, not WAL, which needs shared memory that network file systems do not give.
  void add_to_index(const std::vector<RunRecord>& records);

  /// The record of `key`, or nullopt when it has none. A record that fails its checks (StoredRecord::
  /// problem) is an error naming the file and the fix (`capaboost fsck --repair`): it is never used.
  std::optional<RunRecord> read(const std::string& key) const;
  bool has_ok(const std::string& key) const;

  /// What runs/<key>.json holds, checked; never throws for a bad file.
  StoredRecord inspect(const std::string& key) const;
  /// Every runs/*.json, checked, in key order.
  std::vector<StoredRecord> inspect_all() const;

  /// Every record on disk that passes its checks (the others: inspect_all).
  std::vector<RunRecord> all() const;

  /// Where `capaboost fsck` moved the record of `key` (quarantine/<when>/runs/<key>.json), the newest
  /// when several, or "" when it never did.
  std::string quarantined_record(const std::string& key) const;

  /// The index's rows as key → status ("ok" / "failed"), or nullopt when there is no index file or it
  /// cannot be read (a damaged database). Reads only; never creates or rebuilds the index.
  std::optional<std::map<std::string, std::string>> indexed_statuses() const;

  /// Recreates the SQLite index from the JSON records; returns how many were indexed.
  size_t reindex();

  /// Removes temp files (records, tuned states) left by a killed writer; returns how many.
  size_t remove_stale_temporaries();

  const std::string& results_dir() const { return results_dir_; }
  /// runs/<key>.json; `key` must be a path name (util/path_name.h), so no record leaves runs/.
  std::string record_path(const std::string& key) const;
  /// runs/<key>.safetensors: what a fine-tuning run trained (checkpoint/tuned_state.h: tuners and head
  /// at its best epoch), kept beside its record for `capaboost export`.
  std::string tuned_state_path(const std::string& key) const;
  /// runs/<key>.scalars.csv: a training run's curves (train/training_scalars.h), its digest in the record's
  /// details.scalars (store/run_scalars.h reads it back checked).
  std::string scalars_path(const std::string& key) const;

  /// The full key of the one record whose key starts with `prefix` (the 12 characters `plan` and
  /// `run` print suffice); throws when none or several match.
  std::string resolve_key(const std::string& prefix) const;
  std::string index_path() const;
  /// <results>/quarantine: where `capaboost fsck --repair` moves what fails its checks.
  std::string quarantine_dir() const;

 private:
  std::string results_dir_;
};

}  // namespace capaboost::harness
