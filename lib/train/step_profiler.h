#pragma once
// Where a training step's time goes: with $CAPABOOST_PROFILE_DIR set, a training loop records a
// window of its steps under LibTorch's profiler as one Chrome trace, <dir>/<name>.json, which
// bench/profile_summary.py totals by op. Unset (the default), it costs one branch per step.
//
//   StepProfiler profiler("SST-2-10k lora seed 42");
//   for (...) { profiler.before_step(steps); ...forward, backward, optimizer step...; }
//
// The window starts after warm-up steps (allocator and oneDNN primitive caches filled), so the trace
// shows steady-state steps, as `make bench`'s traces do.

#include <torch/torch.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

namespace capaboost {

class StepProfiler {
 public:
  /// Records steps [first, first + count) (0-based, counted by the caller) when the variable is set.
  explicit StepProfiler(const std::string& name, int64_t first = 10, int64_t count = 10)
      : first_(first), end_(first + count) {
    const char* dir = std::getenv("CAPABOOST_PROFILE_DIR");
    if (dir == nullptr || *dir == '\0') return;
    std::string file;
    for (char c : name) file += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '_';
    if (file.empty()) file = "train";
    // Runs of one label (a sweep's learning rates) each get their own trace: <name>.json, <name>-2.json, …
    path_ = (std::filesystem::path(dir) / (file + ".json")).string();
    for (int n = 2; std::filesystem::exists(path_); ++n)
      path_ = (std::filesystem::path(dir) / (file + "-" + std::to_string(n) + ".json")).string();
  }

  /// Call before step `step` runs: opens the window at `first`, closes it (writing the trace) at the end.
  void before_step(int64_t step) {
    if (path_.empty()) return;
    if (step == first_) recording_ = std::make_unique<torch::autograd::profiler::RecordProfile>(path_);
    if (step == end_) recording_.reset();
  }

 private:
  int64_t first_, end_;
  std::string path_;  // empty: not profiling
  std::unique_ptr<torch::autograd::profiler::RecordProfile> recording_;
};

}  // namespace capaboost
