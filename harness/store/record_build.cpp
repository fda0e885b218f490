#include "store/record_build.h"

#include <fmt/format.h>

namespace capaboost::harness {
namespace {

std::string text(const nlohmann::json& provenance, const char* field) {
  const auto it = provenance.find(field);
  return it != provenance.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string short_commit(const std::string& commit) { return commit.empty() ? "unknown" : commit.substr(0, 7); }

}  // namespace

std::string current_build_id(const std::string& fingerprint, const std::string& device) {
  return fmt::format("numerics {} on {}", fingerprint, device);
}

RecordBuild record_build(const RunRecord& record) {
  const auto& provenance = record.provenance;
  const std::string device = text(provenance, "device").empty() ? "cpu" : text(provenance, "device");
  if (const auto numerics = provenance.find("numerics");
      numerics != provenance.end() && numerics->is_object() && numerics->contains("fingerprint")) {
    const std::string fingerprint = numerics->at("fingerprint").get<std::string>();
    return {current_build_id(fingerprint, device), fmt::format("numerics {} on {}", fingerprint.substr(0, 12), device),
            fmt::format("numerics {} on {}", fingerprint.substr(0, 8), device), true};
  }
  const std::string commit = text(provenance, "git_sha");
  const bool dirty = provenance.value("git_dirty", true);
  const std::string kernel = text(provenance, "blas_kernel");
  if (!dirty && !commit.empty() && commit != "unknown") {
    // One clean commit is one source; the machine's kernels (OpenBLAS's, native bf16 or not), the
    // LibTorch and the compiler complete the build.
    return {fmt::format("commit {} / {} / {} / {} / {} / {}", commit, kernel, text(provenance, "cpu_bf16"), device,
                        text(provenance, "libtorch"), text(provenance, "compiler")),
            fmt::format("commit {} on {} {} (before fingerprints)", short_commit(commit), kernel, device),
            fmt::format("{} clean on {}", short_commit(commit), kernel), false};
  }
  if (const std::string sweep = text(provenance, "sweep"); !sweep.empty()) {
    return {"sweep " + sweep,
            fmt::format("commit {} with uncommitted changes, sweep {} (before fingerprints)", short_commit(commit), sweep),
            fmt::format("{} dirty, sweep {}", short_commit(commit), sweep.substr(0, sweep.find(':'))), false};
  }
  return {"record " + record.key,
          fmt::format("commit {} with unknown uncommitted changes, run {} alone (before fingerprints)",
                      short_commit(commit), record.key.substr(0, 8)),
          fmt::format("{} dirty, run {}", short_commit(commit), record.key.substr(0, 8)), false, true};
}

}  // namespace capaboost::harness
