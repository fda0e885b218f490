#include "execute/provenance.h"

#include "execute/build_identity.h"
#include "execute/numerics_fingerprint.h"
#include "runtime/blas_runtime.h"
#include "runtime/precision.h"

#include <unistd.h>

#include <array>
#include <cstdlib>
#include <string>

namespace capaboost::harness {
namespace {

nlohmann::json collect() {
  const BuildIdentity& build = this_build();
  std::array<char, 256> host{};
  gethostname(host.data(), host.size() - 1);
  const auto blas = runtime::blas_info();
  nlohmann::json collected = {{"git_sha", build.commit},
          {"git_dirty", build.dirty},
          {"build", build.to_json()},
          {"numerics", this_process_numerics().to_json()},
          {"compiler", build.compiler},
          {"build_type", build.build_type},
          {"libtorch", build.libtorch},
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
