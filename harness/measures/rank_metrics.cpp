#include "measures/rank_metrics.h"

namespace capaboost::harness {

void record_rank_metrics(const SiteRanks& ranks, int64_t tuner_effective, MeasureResult& result) {
  if (ranks.empty()) return;
  result.metrics["rank"] = ranks.mean_rank();
  result.metrics["rank_min"] = ranks.min_rank();
  result.metrics["effective_rank"] = ranks.mean_effective_rank();
  result.metrics["params_vs_lora_r8"] = static_cast<double>(tuner_effective) / ranks.lora_parameters(8);
}

}  // namespace capaboost::harness
