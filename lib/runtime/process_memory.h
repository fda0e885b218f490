#pragma once
// The process's memory high-water mark, recorded with every training run.

namespace capaboost {

/// Peak resident set size of this process, in MiB: since the last reset_peak_rss where the kernel lets it
/// be reset (Linux's VmHWM), otherwise since the process started (getrusage's ru_maxrss).
double peak_rss_mib();

/// Starts a new high-water mark at the current resident size (Linux: writing 5 to /proc/self/clear_refs),
/// so that peak_rss_mib bounds one run, not every run a worker process made before it. Does nothing
/// where the kernel has no such file.
void reset_peak_rss();

}  // namespace capaboost
