#include "execute/build_identity.h"

#include <fmt/format.h>
#include <torch/torch.h>

namespace capaboost::harness {

// Defined in the file write_build_identity.cmake generates (linked as capaboost_build_identity).
namespace generated {
extern const char* const kBuildCommit;
extern const bool kBuildDirty;
extern const char* const kBuildDiffSha256;
extern const char* const kBuildCompiler;
extern const char* const kBuildType;
}  // namespace generated

std::string BuildIdentity::short_text() const {
  const std::string head = commit.size() > 7 ? commit.substr(0, 7) : commit;
  return dirty ? fmt::format("{}+uncommitted {}", head, diff_sha256.substr(0, 8)) : head;
}

nlohmann::json BuildIdentity::to_json() const {
  return {{"commit", commit},     {"dirty", dirty},           {"diff_sha256", diff_sha256},
          {"compiler", compiler}, {"build_type", build_type}, {"libtorch", libtorch}};
}

const BuildIdentity& this_build() {
  static const BuildIdentity identity{generated::kBuildCommit, generated::kBuildDirty, generated::kBuildDiffSha256,
                                      generated::kBuildCompiler, generated::kBuildType, TORCH_VERSION};
  return identity;
}

}  // namespace capaboost::harness
