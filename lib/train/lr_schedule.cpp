#include "train/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace capaboost {

LrDecay parse_lr_decay(const std::string& name) {
  if (name == "linear") return LrDecay::kLinear;
  if (name == "cosine") return LrDecay::kCosine;
  TORCH_CHECK(false, "unknown learning-rate schedule '", name, "'; choose linear or cosine");
}

std::string to_string(LrDecay decay) { return decay == LrDecay::kCosine ? "cosine" : "linear"; }

std::vector<std::string> lr_decay_names() { return {"linear", "cosine"}; }

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
  if (options_.decay() == LrDecay::kCosine) {
    // Hugging Face's cosine with num_cycles 0.5: a half period from the peak to 0 at the last step.
    const double progress = std::min(1.0, static_cast<double>(step - warmup_steps_) / decay_span);
    return peak * std::max(0.0, 0.5 * (1.0 + std::cos(M_PI * progress)));
  }
  return peak * std::max(0.0, remaining / decay_span);
}

}  // namespace capaboost
