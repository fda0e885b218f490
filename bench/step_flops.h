#pragma once
// The matrix-product FLOPs of one fine-tuning step of a BERT-family sequence classifier whose backbone is
// frozen and whose linear sites may carry tuners (LoRA, CapaBoost-LoRA, …), every layer run over every
// token (the "full last layer" pass). bench/ratios.py divides it by the same run's GEMM rate: the time
// the step would take if it were nothing but products at that rate (issue #21's and #43's floor).

#include <torch/torch.h>

#include <cstdint>

#include "models/bert_config.h"

namespace capaboost::bench {

/// GFLOP of one step over `batch` × `tokens` tokens: each linear site's forward (measure/flop_count.h),
/// its input gradient (none in layer 0's query/key/value, which read the frozen embeddings), the tuner's
/// forward, weight and input gradients, and attention's two batched products (four backward). Sites
/// that run on one row per sequence (pooler, classifier) are left out: under 0.1% at these shapes.
double frozen_backbone_step_gflop(torch::nn::Module& model, const BertOptions& options, int64_t batch,
                                  int64_t tokens);

}  // namespace capaboost::bench
