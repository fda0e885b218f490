#include "runtime/process_memory.h"

#include <sys/resource.h>

namespace capaboost {

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // kilobytes on Linux
}

}  // namespace capaboost
