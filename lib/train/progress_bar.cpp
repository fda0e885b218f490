#include "train/progress_bar.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace capaboost {

namespace {

constexpr int kBarWidth = 24;
// A terminal redraw more often than this only costs time and flickers.
constexpr double kRedrawSeconds = 0.1;

std::string format_rate(double per_second) {
  if (per_second >= 1e6) return fmt::format("{:.2f}M", per_second / 1e6);
  if (per_second >= 1e3) return fmt::format("{:.1f}k", per_second / 1e3);
  return fmt::format("{:.2f}", per_second);
}

}  // namespace

bool stderr_is_terminal() { return isatty(fileno(stderr)) == 1; }

std::string format_duration(double seconds) {
  const auto total = static_cast<int64_t>(std::llround(std::max(0.0, seconds)));
  const int64_t hours = total / 3600, minutes = (total / 60) % 60, secs = total % 60;
  return hours > 0 ? fmt::format("{}:{:02d}:{:02d}", hours, minutes, secs) : fmt::format("{}:{:02d}", minutes, secs);
}

ProgressBar::ProgressBar(const ProgressOptions& options)
    : options_(options), start_(std::chrono::steady_clock::now()), last_print_(start_) {
  TORCH_CHECK(options.total() >= 0, "ProgressBar: total must be >= 0, got ", options.total());
}

double ProgressBar::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressBar::advance(int64_t steps, int64_t items, const ProgressStats& stats) {
  done_ += steps;
  items_ += items;
  if (!stats.empty()) stats_ = stats;
  const auto now = std::chrono::steady_clock::now();
  const double since_print = std::chrono::duration<double>(now - last_print_).count();
  const double interval = options_.interactive() ? kRedrawSeconds : options_.line_interval_seconds();
  if (since_print >= interval || done_ >= options_.total()) print(done_ >= options_.total());
}

void ProgressBar::finish() {
  if (finished_) return;
  print(true);
}

std::string ProgressBar::render() const {
  const double elapsed = elapsed_seconds();
  const int64_t total = std::max<int64_t>(options_.total(), 1);
  const double fraction = std::min(1.0, static_cast<double>(done_) / static_cast<double>(total));
  std::string text = options_.label().empty() ? "" : options_.label() + " ";
  if (options_.interactive()) {
    const int filled = static_cast<int>(std::lround(fraction * kBarWidth));
    text += "[" + std::string(filled, '#') + std::string(kBarWidth - filled, '.') + "] ";
  }
  text += fmt::format("{}/{} ({:.0f}%)", done_, options_.total(), 100.0 * fraction);
  for (const auto& [name, value] : stats_) text += fmt::format(" {} {:.4g}", name, value);
  if (elapsed > 0) {
    const double rate = options_.unit().empty() ? done_ / elapsed : items_ / elapsed;
    text += fmt::format(" · {} {}/s", format_rate(rate), options_.unit().empty() ? "step" : options_.unit());
  }
  if (done_ > 0 && done_ < options_.total()) {
    text += " · ETA " + format_duration(elapsed * static_cast<double>(options_.total() - done_) / done_);
  } else {
    text += " · " + format_duration(elapsed);
  }
  return text;
}

void ProgressBar::print(bool final_line) {
  const std::string text = render();
  if (options_.interactive()) {
    // \33[K clears what a longer previous line left behind.
    fmt::print(options_.stream(), "\r{}\33[K{}", text, final_line ? "\n" : "");
  } else {
    fmt::print(options_.stream(), "{}\n", text);
  }
  std::fflush(options_.stream());
  last_print_ = std::chrono::steady_clock::now();
  finished_ = finished_ || final_line;
}

}  // namespace capaboost
