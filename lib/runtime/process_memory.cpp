#include "runtime/process_memory.h"

#include <sys/resource.h>

#include <fstream>
#include <string>

namespace capaboost {

double peak_rss_mib() {
  // VmHWM follows clear_refs resets; ru_maxrss never does.
  std::ifstream status("/proc/self/status");
  std::string field;
  while (status >> field) {
    if (field == "VmHWM:") {
      double kilobytes = 0;
      if (status >> kilobytes) return kilobytes / 1024.0;
      break;
    }
    status.ignore(1 << 16, '\n');
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // kilobytes on Linux
}

void reset_peak_rss() {
  std::ofstream clear_refs("/proc/self/clear_refs");
  if (clear_refs) clear_refs << "5";
}

}  // namespace capaboost
