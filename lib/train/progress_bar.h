#pragma once
// Progress of a long loop (training steps, pre-training steps) on stderr: a redrawn bar with the
// running statistics, throughput and ETA on a terminal; plain timestamped lines at a fixed interval
// otherwise (CI logs, `capaboost run` workers), so logs stay readable.
//
//   ProgressBar bar(ProgressOptions(total_steps).label("RTE lora").unit("tok"));
//   for (…) { …; bar.advance(1, tokens_in_batch, {{"loss", loss}}); }
//   bar.finish();

#include <torch/torch.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace capaboost {

/// Named statistics shown after the bar, in order ("loss 0.6931").
using ProgressStats = std::vector<std::pair<std::string, double>>;

/// A C stream handle (an alias: TORCH_ARG pastes its type textually, which would misplace const).
using OutputStream = std::FILE*;

/// Whether stderr is a terminal (progress redraws in place) rather than a file or pipe.
bool stderr_is_terminal();

struct ProgressOptions {
  /* implicit */ ProgressOptions(int64_t total) : total_(total) {}
  /// Number of steps the loop will take.
  TORCH_ARG(int64_t, total);
  TORCH_ARG(std::string, label) = "";
  /// What the throughput counts ("tok" → "tok/s"); empty = steps.
  TORCH_ARG(std::string, unit) = "";
  /// Redraw in place (terminal) or print lines; defaults to whether stderr is a terminal.
  TORCH_ARG(bool, interactive) = stderr_is_terminal();
  /// Plain mode: seconds between lines (the last step always prints).
  TORCH_ARG(double, line_interval_seconds) = 30.0;
  /// Where to write (tests pass a temporary file).
  TORCH_ARG(OutputStream, stream) = stderr;
};

class ProgressBar {
 public:
  explicit ProgressBar(const ProgressOptions& options);

  /// Records `steps` more steps and `items` more counted units (tokens), with the latest statistics.
  void advance(int64_t steps, int64_t items, const ProgressStats& stats = {});
  /// Prints the final state (and the newline a terminal bar needs). Idempotent.
  void finish();

  int64_t done() const { return done_; }
  /// Seconds since construction.
  double elapsed_seconds() const;

 private:
  std::string render() const;
  void print(bool final_line);

  ProgressOptions options_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_print_;
  int64_t done_ = 0;
  int64_t items_ = 0;
  ProgressStats stats_;
  bool finished_ = false;
};

/// "1:02:03" or "4:05" for a duration in seconds.
std::string format_duration(double seconds);

}  // namespace capaboost
