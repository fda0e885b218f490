#pragma once
// The curves of a training run: every scalar the trainer logs (per step: loss, learning rate, gradient
// norm; per epoch: the eval and test metrics, eval loss, throughput), as the points TensorBoard and
// MLflow plot, and the CSV file a run keeps them in beside its record.
//
//   TrainResult result = train_model(…);            // result.scalars: {step, "train/loss", 0.69}, …
//   write_scalars_csv(path, result.scalars);         // step,seconds,tag,value
//   std::vector<ScalarPoint> again = read_scalars_csv(path);
//
// Tags: train/loss, train/lr, train/grad_norm (every optimizer step, the norm before clipping);
// train/epoch_loss, train/tokens_per_second or train/examples_per_second, eval/<metric>, eval/score,
// eval/loss (splits with labels), eval/tokens_per_second, test/<metric>, test/score (every scored
// epoch, at the step it ended on).

#include <cstdint>
#include <string>
#include <vector>

namespace capaboost {

/// One logged value: `tag` at optimizer step `step` (1-based: the step just taken), `seconds` of wall
/// time after training started.
struct ScalarPoint {
  int64_t step = 0;
  std::string tag;
  double value = 0;
  double seconds = 0;
};

/// Writes `points` to `path` atomically as CSV (header `step,seconds,tag,value`, one point a line, times in
/// milliseconds, values with 9 significant digits: every float32 round-trips). Tags are path-like names (`train/loss`): letters,
/// digits, `_ . / -`; any other is an error.
void write_scalars_csv(const std::string& path, const std::vector<ScalarPoint>& points);

/// The points of a file write_scalars_csv wrote. A missing, truncated or malformed file is an error
/// naming the file and line.
std::vector<ScalarPoint> read_scalars_csv(const std::string& path);

}  // namespace capaboost
