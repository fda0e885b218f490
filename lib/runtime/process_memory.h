#pragma once
// The process's memory high-water mark, recorded with every training run.

namespace capaboost {

/// Peak resident set size of this process so far, in MiB (getrusage's ru_maxrss). It never decreases,
/// so in a process that runs several trainings it bounds each of them from above.
double peak_rss_mib();

}  // namespace capaboost
