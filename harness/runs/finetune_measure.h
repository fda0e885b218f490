#pragma once
// The `finetune` measure: one GLUE fine-tuning run of a backbone with a PEFT method, as the paper's
// Tables 2 and 3 and its appendix ablations run them.
//
// Parameters (see harness/spec/parameters.cpp): model, method (+ its options: targets, rank, alpha,
// bottleneck, branches, density, mask, …), task, protocol (propetl|adalora), train_limit, lr, epochs,
// batch_size, max_length, weight_decay, warmup_ratio, grad_clip, seed.
// Metrics: eval_score (the LR-selection score), test_score, test_<metric> for each task metric
// (fractions, as Hugging Face reports them), paper_score (the test number the paper's GLUE tables
// print, ×100: MCC for CoLA, mean correlation for STS-B, accuracy otherwise), best_epoch, tuner_dense_percent,
// tuner_effective_percent, trainable, steps, wall_seconds, train_tokens_per_second, peak_rss_mib.
// Details: every epoch's metrics, ranks per site, the splits' provenance, the backbone.

#include <nlohmann/json.hpp>


#include "runs/measure_registry.h"

namespace capaboost::harness {

/// Runs one fine-tuning from resolved parameters; throws with the trainer's message when the run
/// diverges (the executor records it as failed).
MeasureResult measure_finetune(const nlohmann::json& parameters, const RunContext& context);

std::vector<MeasureSpec> builtin_finetune_measures();

}  // namespace capaboost::harness
