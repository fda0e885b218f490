#include "train/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace capaboost {

LinearWarmupDecay::LinearWarmupDecay(const LinearWarmupDecayOptions& options) : options_(options) {
  TORCH_CHECK(options.total_steps() > 0, "LinearWarmupDecay: total_steps must be positive, got ",
              options.total_steps(), " (no training batches? check the data split and batch size)");
  TORCH_CHECK(options.warmup_ratio() >= 0.0 && options.warmup_ratio() <= 1.0,
              "LinearWarmupDecay: warmup_ratio must be in [0, 1], got ", options.warmup_ratio());
  TORCH_CHECK(options.peak_lr() > 0.0, "LinearWarmupDecay: peak_lr must be positive, got ", options.peak_lr());
  // Hugging Face's TrainingArguments.get_warmup_steps rounds the ratio up; matching it keeps our
  // step-by-step learning rates identical to the reference runs'.
  warmup_steps_ = options.warmup_steps() >= 0
                      ? options.warmup_steps()
                      : static_cast<int64_t>(std::ceil(options.warmup_ratio() * options.total_steps()));
}

double LinearWarmupDecay::lr(int64_t step) const {
  const double peak = options_.peak_lr();
  if (step < warmup_steps_) return peak * static_cast<double>(step) / static_cast<double>(std::max<int64_t>(1, warmup_steps_));
  const double remaining = static_cast<double>(options_.total_steps() - step);
  const double decay_span = static_cast<double>(std::max<int64_t>(1, options_.total_steps() - warmup_steps_));
  return peak * std::max(0.0, remaining / decay_span);
}

}  // namespace capaboost
