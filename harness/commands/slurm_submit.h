#pragma once
// `capaboost run SPEC --backend slurm`: the sweep's missing runs as one SLURM job array.

#include "cluster/slurm_script.h"
#include "commands/sweep_options.h"
#include "execute/executor.h"

namespace capaboost::harness {

/// Submits every run of `sweep` that has no record (see needs_run) and is neither queued, running in
/// the scheduler, nor claimed by a live process, as one array; first indexes the records earlier
/// array tasks wrote. Prints what it submitted (or, with options.dry_run, the script). Returns the
/// exit code. `device` (runtime/device.h) is resolved by each task on its node; with GPUs asked for,
/// "auto" becomes "cuda", so a node without a usable GPU stops the task instead of running on its CPU.
int submit_sweep_to_slurm(const Sweep& sweep, const SweepOptions& options, const ExecuteOptions& execute_options,
                          const SlurmResources& resources, const std::string& device);

}  // namespace capaboost::harness
