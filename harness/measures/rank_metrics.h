#pragma once
// The rank metrics both the `rank` and the `finetune` measure record, so that Table 1's random-factor
// and trained row groups (and Figure 1) read the same names.

#include "measure/numerical_rank.h"
#include "measures/measure_registry.h"

namespace capaboost::harness {

/// Adds to `result`: metrics rank (mean over sites), rank_min, effective_rank (mean over sites) and
/// params_vs_lora_r8 (`tuner_effective` over LoRA r=8's count on the same sites: Table 1's "#Param").
/// Nothing when no site is a linear weight update (adapters, prefixes). The per-site spectra are the
/// caller's to record (SiteRanks::to_json).
void record_rank_metrics(const SiteRanks& ranks, int64_t tuner_effective, MeasureResult& result);

/// The declarations of the metrics record_rank_metrics writes, for the measures that record them.
MetricList rank_metrics();

}  // namespace capaboost::harness
