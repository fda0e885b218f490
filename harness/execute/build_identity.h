#pragma once
// Which source this binary was compiled from, fixed at build time (execute/write_build_identity.cmake):
// the commit, whether the tree had uncommitted changes and a digest of them, the compiler and build type,
// the LibTorch version. Every run record carries it (execute/provenance.h), beside the numerics
// fingerprint (execute/numerics_fingerprint.h), which says whether two builds compute alike.

#include <nlohmann/json.hpp>

#include <string>

namespace capaboost::harness {

struct BuildIdentity {
  std::string commit;       ///< the commit checked out when the binary was built; "unknown" outside git
  bool dirty = false;       ///< tracked files differed from it, or untracked files were present
  std::string diff_sha256;  ///< SHA-256 of those changes (`git diff HEAD --binary` plus untracked files); empty when clean
  std::string compiler;     ///< "GNU 12.2.0"
  std::string build_type;   ///< "Release"
  std::string libtorch;     ///< the LibTorch headers compiled against ("1.13.0")

  /// "3b93580" or "3b93580+uncommitted 1a2b3c4d": the commit, and the changes' digest when dirty.
  std::string short_text() const;
  nlohmann::json to_json() const;
};

/// The identity compiled into this program.
const BuildIdentity& this_build();

}  // namespace capaboost::harness
