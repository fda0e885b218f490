#pragma once
// Run records: one JSON file per run under <results>/runs/, written atomically, plus an SQLite index
// that can always be rebuilt from them.

#include "store/run_record.h"

#include <optional>
#include <string>
#include <vector>

namespace capaboost::harness {

class RecordStore {
 public:
  /// `results_dir` holds runs/ and index.sqlite; created when missing.
  explicit RecordStore(std::string results_dir);

  /// Writes `record` to runs/<key>.json via a temp file, fsync and rename (util/atomic_file.h), so a
  /// killed process leaves either the old state or the complete record. The index is not touched:
  /// worker processes and array tasks write records only, and one process indexes them (add_to_index).
  void write(const RunRecord& record);

  /// Adds (or replaces) `records` in the SQLite index, in one transaction; an index of older code is
  /// rebuilt from every record on disk instead. Only one process of a sweep calls this: the index uses
  /// a rollback journal, not WAL, which needs shared memory that network file systems do not give.
  void add_to_index(const std::vector<RunRecord>& records);

  /// The record of `key`, or nullopt. A file that does not parse or is not a record is reported (the
  /// error names the file and the fix).
  std::optional<RunRecord> read(const std::string& key) const;
  bool has_ok(const std::string& key) const;

  /// Every record on disk.
  std::vector<RunRecord> all() const;

  /// Recreates the SQLite index from the JSON records; returns how many were indexed.
  size_t reindex();

  /// Removes temp files (records, tuned states) left by a killed writer; returns how many.
  size_t remove_stale_temporaries();

  const std::string& results_dir() const { return results_dir_; }
  std::string record_path(const std::string& key) const;
  /// runs/<key>.safetensors: what a fine-tuning run trained (checkpoint/tuned_state.h: tuners and head
  /// at its best epoch), kept beside its record for `capaboost export`.
  std::string tuned_state_path(const std::string& key) const;

  /// The full key of the one record whose key starts with `prefix` (the 12 characters `plan` and
  /// `run` print suffice); throws when none or several match.
  std::string resolve_key(const std::string& prefix) const;
  std::string index_path() const;

 private:
  std::string results_dir_;
};

}  // namespace capaboost::harness
