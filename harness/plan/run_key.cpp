#include "plan/run_key.h"

#include "util/sha256.h"

namespace capaboost::harness {

std::string canonical_run_text(const RunConfig& run) {
  // nlohmann::json objects keep keys sorted, so dump() is canonical.
  nlohmann::json config = run.config;
  for (const auto& name : run.unkeyed) config.erase(name);
  nlohmann::json canonical = {{"measure", run.measure},
                              {"config", config},
                              {"code_version", kCodeVersion},
                              {"data", run.data_fingerprint}};
  if (!run.model_fingerprint.empty()) canonical["model"] = run.model_fingerprint;
  return canonical.dump();
}

std::string run_key(const RunConfig& run) { return sha256_hex(canonical_run_text(run)); }

}  // namespace capaboost::harness
