#include "step_flops.h"

#include <string>

#include "measure/flop_count.h"

namespace capaboost::bench {

double frozen_backbone_step_gflop(torch::nn::Module& model, const BertOptions& options, int64_t batch,
                                  int64_t tokens) {
  double per_token = 0;
  for (const auto& site : site_flops(model)) {
    if (site.site.find("classifier.") != std::string::npos || site.site.find("pooler.") != std::string::npos) continue;
    const bool input_gradient = site.site.find("layer.0.attention.self.") == std::string::npos;
    per_token += site.base * (input_gradient ? 2 : 1);
    // A tuner's weight gradients cost its forward again, its input gradients once more (half: the
    // second factor's only, where the input needs none).
    per_token += site.tuner.executed * (input_gradient ? 3 : 2.5);
  }
  // q kᵀ and probs·v: 2·T·C per token each forward, four of them backward; layer 0's key side of q kᵀ
  // needs no gradient.
  const double attention = 2.0 * static_cast<double>(tokens) * static_cast<double>(options.hidden_size());
  per_token += static_cast<double>(options.num_hidden_layers()) * 6 * attention - attention;
  return per_token * static_cast<double>(batch * tokens) / 1e9;
}

}  // namespace capaboost::bench
