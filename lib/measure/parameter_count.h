#pragma once
// Trainable-parameter accounting: the paper's "% FT Params".

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

namespace capaboost {

struct ParameterReport {
  int64_t backbone = 0;         ///< parameters of the pre-trained model (everything but tuners and head)
  int64_t tuner_dense = 0;      ///< tuner parameters stored
  int64_t tuner_effective = 0;  ///< tuner entries in the union of the CapaBoost branch masks
  int64_t head = 0;             ///< task-head parameters (names under the head prefixes)
  int64_t backbone_trained = 0; ///< backbone parameters that train (BitFit's biases, full fine-tuning's all)
  int64_t trainable = 0;        ///< parameters with requires_grad, whatever they are

  /// Tuner parameters as a percentage of the backbone, the paper's "% FT Params".
  double tuner_dense_percent() const { return 100.0 * tuner_dense / backbone; }
  double tuner_effective_percent() const { return 100.0 * tuner_effective / backbone; }
  /// What a method fine-tunes as a percentage of the backbone, for every kind of method: the tuners'
  /// effective entries plus the backbone parameters it trains (BitFit 0.08%, full fine-tuning 100%).
  double fine_tuned_percent() const { return 100.0 * (tuner_effective + backbone_trained) / backbone; }
};

/// Counts `model`'s parameters; names starting with one of `head_prefixes` count as head.
ParameterReport count_parameters(torch::nn::Module& model,
                                 const std::vector<std::string>& head_prefixes = {});

}  // namespace capaboost
