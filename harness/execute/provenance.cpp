#include "execute/provenance.h"

#include "runtime/blas_runtime.h"
#include "runtime/precision.h"

#include <torch/torch.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>

namespace capaboost::harness {
namespace {

#ifndef CAPABOOST_SOURCE_DIR
#define CAPABOOST_SOURCE_DIR "."
#endif

std::string shell_output(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return "";
  std::string output;
  std::array<char, 256> buffer{};
  while (fgets(buffer.data(), buffer.size(), pipe.get())) output += buffer.data();
  while (!output.empty() && (output.back() == '\n' || output.back() == ' ')) output.pop_back();
  return output;
}

nlohmann::json collect() {
  // --no-optional-locks: `git status` would otherwise take .git/index.lock to refresh the index, so two
  // workers starting runs at once race for it (the loser prints nothing here and would read as clean),
  // and a worker killed meanwhile leaves the lock behind for every later git command.
  const std::string git = std::string("git --no-optional-locks -C '") + CAPABOOST_SOURCE_DIR + "' ";
  const std::string sha = shell_output(git + "rev-parse HEAD 2>/dev/null");
  const std::string dirty = shell_output(git + "status --porcelain --untracked-files=no 2>/dev/null");
  std::array<char, 256> host{};
  gethostname(host.data(), host.size() - 1);
  const auto blas = runtime::blas_info();
  nlohmann::json collected = {{"git_sha", sha.empty() ? "unknown" : sha},
          {"git_dirty", !dirty.empty()},
          {"compiler", CAPABOOST_COMPILER},
          {"build_type", CAPABOOST_BUILD_TYPE},
          {"libtorch", TORCH_VERSION},
          {"host", host.data()},
          {"threads", blas.threads},
          {"blas_library", blas.library},
          {"blas_vendor", blas.vendor},
          {"blas_kernel", blas.kernel},
          {"openblas_coretype_env", blas.coretype_env},
          {"cpu_bf16", runtime::cpu_bf16_support()},
          {"omp_wait_policy", std::getenv("OMP_WAIT_POLICY") != nullptr ? std::getenv("OMP_WAIT_POLICY") : ""}};
  // A SLURM array task names itself JOB_TASK (squeue's and sacct's id for it), so a record leads to its log.
  const char* array_job = std::getenv("SLURM_ARRAY_JOB_ID");
  const char* array_task = std::getenv("SLURM_ARRAY_TASK_ID");
  const char* job = std::getenv("SLURM_JOB_ID");
  if (array_job != nullptr && array_task != nullptr) {
    collected["slurm_job"] = std::string(array_job) + "_" + array_task;
  } else if (job != nullptr) {
    collected["slurm_job"] = job;
  }
  return collected;
}

}  // namespace

const nlohmann::json& provenance() {
  static const nlohmann::json collected = collect();
  return collected;
}

}  // namespace capaboost::harness
