// The `adamix` method: AdaMix (peft/adamix.h) at the target sites — each layer's feed-forward output by
// default, where the released code puts one mixture; `placement` as the adapter's (peft/adapter_placement.h):
// on the projection's output, or after the block's LayerNorm as PAdapter — with its
// consistency regulariser as the training hook: a second forward pass on the same batch, with fresh
// routes and dropout, and ½[KL(sg(p₂) ‖ p₁) + KL(sg(p₁) ‖ p₂)] (sum over classes, mean over the batch)
// added to the task loss of the first pass, weight 1 as released. A single output (regression) has a
// softmax of 1 and a KL of 0: the second pass is skipped there. Defaults as microsoft/AdaMix's scripts:
// 4 experts, shared up-projection; the spec names its activation (the code uses GELU).

#include "peft/adamix.h"
#include "peft/adapter_placement.h"
#include "peft/method_parameters.h"
#include "peft/method_registry.h"
#include "sites/site_parameters.h"

namespace capaboost {
namespace {

ParameterList adamix_parameters() {
  const AdaMixOptions defaults;
  ParameterList parameters = adapter_shape_parameters();
  const ParameterList own{
      ParameterDef::integer("experts", "AdaMix's number of down-projection experts").defaults_to(defaults.experts()).at_least(1).at_most(64),
      ParameterDef::boolean("share_up", "one up-projection shared by all experts (else one per expert)").defaults_to(defaults.share_up()),
      ParameterDef::number("consistency_weight", "weight of AdaMix's consistency regulariser (0: none)").defaults_to(1.0).at_least(0),
  };
  parameters.insert(parameters.end(), own.begin(), own.end());
  parameters.push_back(adapter_placement_parameter());
  const auto sites = site_selection_parameters({}, R"((.*\.)?layer\.[0-9]+\.output\.dense)");
  parameters.insert(parameters.end(), sites.begin(), sites.end());
  return parameters;
}

std::vector<std::string> attach_adamix(torch::nn::Module& model, const Parameters& config) {
  const auto options = AdaMixOptions(config.get<int64_t>("bottleneck"))
                           .experts(config.get<int64_t>("experts"))
                           .share_up(config.get<bool>("share_up"))
                           .activation(parse_adapter_activation(config.get<std::string>("activation")));
  return attach_by_placement(model, config, [&](const std::string& site, int64_t features, bool residual) -> SiteTunerPtr {
    return std::make_shared<AdaMixImpl>(AdaMixOptions(options).residual(residual), site, features);
  });
}

class AdaMixConsistency : public TrainingHooks {
 public:
  explicit AdaMixConsistency(double weight) : weight_(weight) {}

  torch::Tensor regularization_loss(TaskModelImpl& model, const Batch& batch, const torch::Tensor& outputs) override {
    if (weight_ == 0 || outputs.size(-1) < 2) return {};
    const auto first = torch::log_softmax(outputs.to(torch::kFloat), -1);                       // (B, …, K)
    const auto second = torch::log_softmax(model.forward_batch(batch).to(torch::kFloat), -1);  // other routes
    // KL(sg(p) ‖ q) = Σ sg(p) (sg(log p) − log q), summed over everything, divided by the batch size.
    const auto kl = [&](const torch::Tensor& target, const torch::Tensor& input) {
      const auto fixed = target.detach();
      return (fixed.exp() * (fixed - input)).sum() / static_cast<double>(outputs.size(0));
    };
    return (kl(second, first) + kl(first, second)) * (0.5 * weight_);
  }

 private:
  double weight_;
};

[[maybe_unused]] const bool registered_adamix_method = [] {
  MethodSpec method{"adamix", "AdaMix (Wang et al., 2022): routed adapter experts, consistency regulariser, merged for inference",
                    adamix_parameters(), attach_adamix};
  method.training_hooks = [](torch::nn::Module&, const Parameters& config) -> TrainingHooksPtr {
    return std::make_shared<AdaMixConsistency>(config.get<double>("consistency_weight"));
  };
  return register_method(std::move(method));
}();

}  // namespace
}  // namespace capaboost
