#pragma once
// The learning-rate schedule of the paper's runs (Hugging Face Trainer's `linear` scheduler): linear
// warm-up from 0 to the peak over the first warm-up steps, then linear decay to 0 at the last step.
// `decay(LrDecay::kCosine)` decays along a half cosine instead (Hugging Face's `cosine`,
// get_cosine_schedule_with_warmup), for the VTAB-1k runs that follow NOAH's cosine schedule.
//
//   LinearWarmupDecay schedule(LinearWarmupDecayOptions(total_steps).peak_lr(5e-4).warmup_ratio(0.06));
//   for (int64_t step = 0; step < total_steps; ++step) { set_learning_rate(optimizer, schedule.lr(step)); … }

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

namespace capaboost {

/// How the rate falls from the peak after warm-up: linearly, or along a half cosine, both to 0 at the last step.
enum class LrDecay { kLinear, kCosine };
/// Parses "linear" or "cosine" (errors name the valid choices).
LrDecay parse_lr_decay(const std::string& name);
std::string to_string(LrDecay decay);
/// "linear", "cosine": what a spec's `lr_schedule:` may say.
std::vector<std::string> lr_decay_names();

struct LinearWarmupDecayOptions {
  /* implicit */ LinearWarmupDecayOptions(int64_t total_steps) : total_steps_(total_steps) {}
  /// Optimizer steps in the whole run (epochs × batches per epoch).
  TORCH_ARG(int64_t, total_steps);
  TORCH_ARG(double, peak_lr) = 1e-3;
  /// Fraction of total_steps spent warming up; rounded up to whole steps as Hugging Face does
  /// (ceil(total_steps · warmup_ratio)).
  TORCH_ARG(double, warmup_ratio) = 0.0;
  /// If >= 0, the warm-up length in steps, overriding warmup_ratio (Hugging Face's warmup_steps).
  TORCH_ARG(int64_t, warmup_steps) = -1;
  TORCH_ARG(LrDecay, decay) = LrDecay::kLinear;
};

class LinearWarmupDecay {
 public:
  explicit LinearWarmupDecay(const LinearWarmupDecayOptions& options);

  /// The learning rate for optimizer step `step` (0-based): peak·step/warmup during warm-up, then with
  /// progress p = (step − warmup)/(total − warmup) peak·(1 − p) (linear) or peak·(1 + cos(π·p))/2
  /// (cosine), never below 0.
  double lr(int64_t step) const;
  int64_t warmup_steps() const { return warmup_steps_; }
  const LinearWarmupDecayOptions& options() const { return options_; }

 private:
  LinearWarmupDecayOptions options_;
  int64_t warmup_steps_;
};

}  // namespace capaboost
