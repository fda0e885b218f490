#pragma once
// `capaboost fsck`: the results folder checked against itself — each record against its seal
// (store/record_digest.h) and its file name, each tuned state and scalars file (a run's curves) against
// the digest its record names, the SQLite index against the records, claims and temporary files against
// their live holders — and, with --repair, everything that fails moved to quarantine/<UTC time>/ under the
// same relative path.
// Nothing is ever deleted: a quarantined record can be looked at, or moved back by hand.
//
//   StoreCheck check = check_store(store, claims);
//   if (!check.clean()) quarantine(store, check);   // fills each finding's moved_to, rebuilds the index

#include "store/record_store.h"
#include "store/run_claims.h"

#include <string>
#include <vector>

namespace capaboost::harness {

/// One thing that fails its check.
struct StoreFinding {
  std::string path;     ///< relative to the results folder: "runs/<key>.json", "index.sqlite", "claims/<key>.claim"
  std::string problem;  ///< what is wrong, in words
  /// How to get back what it held: "capaboost run experiments/x.yaml --profile cpu reruns run 1a2b…", or
  /// "" when nothing is lost (a stale claim, a temporary, the index).
  std::string rerun;
  bool movable = true;    ///< false for what is missing (a tuned state a record names): nothing to move
  std::string moved_to;   ///< set by quarantine(): where the file went, relative to the results folder
};

struct StoreCheck {
  size_t records = 0;        ///< record files found (usable or not)
  size_t sealed = 0;         ///< usable records whose digest holds
  size_t unsealed = 0;       ///< usable records written before seals (schema ≤ 2): nothing to check against
  size_t tuned_states = 0;   ///< runs/*.safetensors found
  size_t scalars_files = 0;  ///< runs/*.scalars.csv found (store/run_scalars.h)
  size_t index_rows = 0;     ///< rows of the index (0 when there is none)
  bool index_stale = false;  ///< the index disagrees with the records (or is missing or unreadable)
  std::vector<StoreFinding> findings;
  std::string quarantine;    ///< set by quarantine(): the folder used, relative to the results folder
  size_t reindexed = 0;      ///< set by quarantine(): records indexed into the rebuilt index

  bool clean() const { return findings.empty(); }
};

/// Checks every file of `store` (see the header comment); reads only. A tuned state or temporary file
/// of a run that a live process holds is a write in progress, not a finding.
StoreCheck check_store(const RecordStore& store, const RunClaims& claims);

/// Moves every movable finding of `check` to <results>/quarantine/<UTC time>/<its path>, writes
/// fsck.txt there (what moved, why, how to rerun it), and rebuilds the index from the records left
/// when any record moved or the index was stale (the old index is quarantined too). Throws naming the
/// file when a move fails; what moved before stays moved and listed.
void quarantine(RecordStore& store, StoreCheck& check);

}  // namespace capaboost::harness
