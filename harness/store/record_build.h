#pragma once
// Which build made a record, as far as the record can tell: the rule that a paired difference compares
// runs of one build (report/paired_comparison.h) and `capaboost run --rerun-other-builds` read it.
//
// A record with a numerics fingerprint (execute/numerics_fingerprint.h) belongs to the build class of
// that fingerprint on its device: equal classes compute alike. Records made before fingerprints
// existed can only be grouped where they prove one binary:
//
//   | the record                                    | its class                                           |
//   |-----------------------------------------------|-----------------------------------------------------|
//   | fingerprint F, device D                       | numerics F on D                                     |
//   | no fingerprint, clean commit C                | commit C on the same CPU kernel, LibTorch, compiler |
//   | no fingerprint, uncommitted changes, sweep S  | sweep S (its workers exec one binary)               |
//   | no fingerprint, uncommitted changes, no sweep | the record alone (which changes is unknown)         |
//
// So two old runs of one clean commit on one kind of machine pair; two old runs made with uncommitted
// changes pair only when one sweep made both; an old run and a fingerprinted one never do. (An old
// record's commit is the checkout's HEAD when the run started, not the binary's: a clean one trusts that
// the binary was built from it.)

#include "store/run_record.h"

#include <string>

namespace capaboost::harness {

struct RecordBuild {
  std::string id;           ///< equal ids: runs of one build (see the table above)
  std::string description;  ///< for status: "numerics 1a2b3c4d5e6f on cpu", "commit 3baf49b on SkylakeX cpu (before fingerprints)", …
  /// For a table's notes, short: "numerics 1a2b3c4d on cpu", "3baf49b clean on SkylakeX", "3b93580 dirty,
  /// sweep 25900:1795…", "3b93580 dirty, run da92ea7c".
  std::string label;
  bool fingerprinted = false;  ///< the id is a numerics fingerprint, not a grouping of an old record
  bool alone = false;          ///< an old record no other record can share a build with (last row above)
};

RecordBuild record_build(const RunRecord& record);

/// The class this process's runs on `device` get ("numerics <fingerprint> on <device>"), for telling
/// a record of another build from one of this build.
std::string current_build_id(const std::string& fingerprint, const std::string& device);

}  // namespace capaboost::harness
