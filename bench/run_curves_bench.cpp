// What keeping a run's curves costs (issue #69: at most 1% of a MiniLM run's wall time): per step, the
// three points the trainer logs (train/loss, train/lr, train/grad_norm, each with its time); per run,
// writing runs/<key>.scalars.csv, its SHA-256 for the record, and the TensorBoard event file. Arg steps:
// 804 is a cpu-profile CoLA run (8,551 examples at batch 32, 3 epochs: cola_replication); 4,000 a long
// one. bench/ratios.py-style arithmetic in docs/tracking.md divides them by BM_MiniLmLoraStep (batch 32)
// from the same run. The gradient norm is free on these runs: clipping (grad_clip 1.0, every profile)
// computes it anyway.

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "tracking/tensorboard_events.h"
#include "train/training_scalars.h"
#include "util/atomic_file.h"
#include "util/sha256.h"

namespace {

using namespace capaboost;

// The points of a run of `steps` steps over 3 epochs: three a step, eleven an epoch (CoLA's).
std::vector<ScalarPoint> run_points(int64_t steps) {
  std::vector<ScalarPoint> points;
  for (int64_t step = 1; step <= steps; ++step) {
    const double seconds = 0.06 * static_cast<double>(step);
    points.push_back({step, "train/loss", 0.6 - 1e-4 * static_cast<double>(step), seconds});
    points.push_back({step, "train/lr", 2e-3 * static_cast<double>(steps - step) / static_cast<double>(steps), seconds});
    points.push_back({step, "train/grad_norm", 1.0 + 1e-3 * static_cast<double>(step % 97), seconds});
    if (step % (steps / 3) == 0) {
      for (const char* tag : {"train/epoch_loss", "train/tokens_per_second", "eval/matthews_correlation", "eval/score",
                              "eval/loss", "eval/tokens_per_second", "test/matthews_correlation", "test/score",
                              "test/loss"}) {
        points.push_back({step, tag, 0.25, seconds + 2.0});
      }
    }
  }
  return points;
}

void BM_LogStepScalars(benchmark::State& state) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<ScalarPoint> scalars;
  int64_t step = 0;
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  for (auto _ : state) {
    ++step;
    scalars.push_back({step, "train/loss", 0.5, elapsed()});
    scalars.push_back({step, "train/lr", 1e-3, elapsed()});
    scalars.push_back({step, "train/grad_norm", 1.0, elapsed()});
    if (scalars.size() > 30000) scalars.clear();  // a long run's worth, then again
  }
  benchmark::DoNotOptimize(scalars.data());
}
BENCHMARK(BM_LogStepScalars)->Unit(benchmark::kNanosecond);

void BM_WriteRunCurves(benchmark::State& state) {
  const auto points = run_points(state.range(0));
  const auto dir = std::filesystem::temp_directory_path() / "capaboost-bench-curves";
  std::filesystem::create_directories(dir);
  const std::string csv = (dir / "run.scalars.csv").string(), events = (dir / "events.out.tfevents.0.capaboost").string();
  for (auto _ : state) {
    write_scalars_csv(csv, points);
    benchmark::DoNotOptimize(sha256_file_hex(csv));
    write_file_atomically(events, harness::encode_event_file(points, 1.7e9));
  }
  state.counters["points"] = static_cast<double>(points.size());
  state.counters["csv_bytes"] = static_cast<double>(std::filesystem::file_size(csv));
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_WriteRunCurves)->Arg(804)->Arg(4000)->ArgName("steps")->Unit(benchmark::kMillisecond);

}  // namespace
