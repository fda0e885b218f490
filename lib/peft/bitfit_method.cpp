// The `bitfit` method: BitFit (Ben Zaken et al., 2022). It attaches nothing; the backbone's biases
// train (LayerNorm's included, as in its reference code) with the head.

#include "peft/method_registry.h"

namespace capaboost {
namespace {

bool is_bias(const std::string& name) {
  return name == "bias" || (name.size() > 5 && name.compare(name.size() - 5, 5, ".bias") == 0);
}

[[maybe_unused]] const bool registered_bitfit_method = register_method(
    {"bitfit", "BitFit: only the backbone's biases and the head train", {},
     [](torch::nn::Module&, const Parameters&) { return std::vector<std::string>{}; }, is_bias, "biases + head"});

}  // namespace
}  // namespace capaboost
