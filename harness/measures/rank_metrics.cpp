#include "measures/rank_metrics.h"

namespace capaboost::harness {

void record_rank_metrics(const SiteRanks& ranks, int64_t tuner_effective, MeasureResult& result) {
  if (ranks.empty()) return;
  result.metrics["rank"] = ranks.mean_rank();
  result.metrics["rank_min"] = ranks.min_rank();
  result.metrics["effective_rank"] = ranks.mean_effective_rank();
  result.metrics["params_vs_lora_r8"] = static_cast<double>(tuner_effective) / ranks.lora_parameters(8);
}

MetricList rank_metrics() {
  return {
      {"rank", "numerical rank of ΔW, mean over the tuned sites (weight-update methods only)"},
      {"rank_min", "the lowest numerical rank of ΔW over the tuned sites"},
      {"effective_rank", "effective rank (exp of the singular values' entropy) of ΔW, mean over sites"},
      {"params_vs_lora_r8", "effective tuner parameters over LoRA r=8's on the same sites (Table 1's #Param)"},
  };
}

}  // namespace capaboost::harness
