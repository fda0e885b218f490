// The ProPETL methods (Zeng et al., 2023): one PEFT module shared across layers, a learned binary
// mask per site. `propetl_lora` (peft/propetl_lora.h), `propetl_adapter` (peft/propetl_adapter.h)
// and `propetl_prefix` (peft/propetl_prefix.h). Defaults are ProPETL's published RoBERTa scripts
// (github.com/ChaosCodes/ProPETL, run_lora.sh / run_adapter.sh / run_prefix.sh): kept fraction
// ("sparsity") 0.1 / 0.5 / 0.1 and mask-score learning rate 3e-2 / 3e-3 / 1e-4, the scores in AdamW's
// decayed group like the weights; the shapes are those of the paper's budget table (r = 32,
// bn = 64, l = 64) through the same parameters as `lora`, `adapter` and `prefix`.

#include <map>
#include <regex>

#include "peft/adapter_placement.h"
#include "peft/method_parameters.h"
#include "peft/method_registry.h"
#include "peft/propetl_adapter.h"
#include "peft/propetl_lora.h"
#include "peft/propetl_prefix.h"
#include "sites/site_parameters.h"

namespace capaboost {
namespace {

// ProPETL's own two: how much of each site's mask is kept, and how fast its scores learn.
ParameterList propetl_parameters(double keep, double mask_lr) {
  return {
      ParameterDef::number("keep_fraction", "fraction of the shared module's entries each site's learned mask keeps")
          .defaults_to(keep)
          .above(0)
          .at_most(1),
      ParameterDef::number("mask_lr", "peak learning rate of the mask scores (follows the run's schedule)")
          .defaults_to(mask_lr)
          .above(0),
  };
}

ParameterList with(ParameterList parameters, std::initializer_list<ParameterList> more) {
  for (const auto& list : more) parameters.insert(parameters.end(), list.begin(), list.end());
  return parameters;
}

// The scores train at mask_lr; every other parameter at the run's learning rate.
class MaskLearningRate : public TrainingHooks {
 public:
  explicit MaskLearningRate(double mask_lr) : mask_lr_(mask_lr) {}
  std::optional<double> learning_rate_of(const std::string& name) const override {
    if (name.find(".mask_scores") != std::string::npos) return mask_lr_;
    return std::nullopt;
  }

 private:
  double mask_lr_;
};

TrainingHooksPtr mask_learning_rate(torch::nn::Module&, const Parameters& config) {
  return std::make_shared<MaskLearningRate>(config.get<double>("mask_lr"));
}

// What a site is within its layer: its name after "layer.<i>." ("attention.self.query",
// "intermediate.dense", "output.dense"), or its last component where the name has no layer index. The
// sites of one kind share a prototype. The last component alone would pool the three "dense" matrices of
// a layer (attention output, intermediate, output), which differ in shape.
std::string site_kind(const std::string& site) {
  static const std::regex layer_index(R"((^|\.)layer\.[0-9]+\.)");
  std::smatch match;
  if (std::regex_search(site, match, layer_index)) return match.suffix().str();
  const auto dot = site.rfind('.');
  return dot == std::string::npos ? site : site.substr(dot + 1);
}

std::vector<std::string> attach_propetl_lora(torch::nn::Module& model, const Parameters& config) {
  const auto options = ProPetlLoraOptions(config.get<int64_t>("rank"))
                           .alpha(config.get<double>("alpha"))
                           .dropout(config.get<double>("lora_dropout"))
                           .keep(config.get<double>("keep_fraction"));
  const LoraInit init = parse_lora_init(config.get<std::string>("lora_init"));
  std::map<std::string, LoraPrototype> prototypes;  // by site kind
  return attach_tuners(model, site_selector(config), [&](const std::string& site, const TunableLinearImpl& layer) -> SiteTunerPtr {
    auto [entry, fresh] = prototypes.try_emplace(site_kind(site), nullptr);
    if (fresh) entry->second = LoraPrototype(options.rank(), layer.options.in_features(), layer.options.out_features(), init);
    TORCH_CHECK(entry->second->A.size(1) == layer.options.in_features() && entry->second->B.size(0) == layer.options.out_features(),
                "propetl_lora: site '", site, "' is ", layer.options.out_features(), "×", layer.options.in_features(),
                " but the '", entry->first, "' prototype is ", entry->second->B.size(0), "×", entry->second->A.size(1));
    return std::make_shared<ProPetlLoraImpl>(options, site, entry->second, /*owns_prototype=*/fresh);
  });
}

std::vector<std::string> attach_propetl_adapter(torch::nn::Module& model, const Parameters& config) {
  const auto options = ProPetlAdapterOptions(config.get<int64_t>("bottleneck"))
                           .activation(parse_adapter_activation(config.get<std::string>("activation")))
                           .keep(config.get<double>("keep_fraction"));
  AdapterPrototype prototype{nullptr};
  return attach_by_placement(model, config, [&](const std::string& site, int64_t features, bool residual) -> SiteTunerPtr {
    const bool fresh = prototype.is_empty();
    if (fresh) prototype = AdapterPrototype(options.bottleneck(), features);
    TORCH_CHECK(prototype->up.size(0) == features, "propetl_adapter: site '", site, "' has width ", features,
                " but the shared adapter ", prototype->up.size(0), "; select sites of one width");
    return std::make_shared<ProPetlAdapterImpl>(ProPetlAdapterOptions(options).residual(residual), site, prototype,
                                                /*owns_prototype=*/fresh);
  });
}

std::vector<std::string> attach_propetl_prefix(torch::nn::Module& model, const Parameters& config) {
  const int64_t length = config.get<int64_t>("prefix_length"), hidden = config.get<int64_t>("prefix_mlp_hidden");
  TORCH_CHECK(hidden > 0, "propetl_prefix generates its shared prefix with an MLP: prefix_mlp_hidden must be positive");
  PrefixEncoder prototype{nullptr};
  return attach_key_value_tuners(model, site_selector(config), [&](const std::string& site, const AttentionSiteImpl& attention) {
    const int64_t width = attention.num_heads() * attention.head_size();
    const bool fresh = prototype.is_empty();
    if (fresh) prototype = PrefixEncoder(length, width, hidden, /*layers=*/1);
    TORCH_CHECK(prototype->embedding.size(1) == width, "propetl_prefix: attention site '", site, "' has width ", width,
                " but the shared prefix ", prototype->embedding.size(1), "; select sites of one width");
    // ProPETL draws every site's scores as one (sites, l, 2C) tensor: each slice has its fan-in.
    const auto options = ProPetlPrefixOptions().keep(config.get<double>("keep_fraction")).score_fan_in(length * 2 * width);
    return std::make_shared<ProPetlPrefixImpl>(options, site, prototype, fresh, attention.num_heads(), attention.head_size());
  });
}

[[maybe_unused]] const bool registered_propetl_method = [] {
  MethodSpec lora{"propetl_lora", "ProPETL-LoRA (Zeng et al., 2023): one LoRA per site kind shared across layers, a learned mask per site",
                  with(lora_factor_parameters(), {propetl_parameters(0.1, 3e-2), site_selection_parameters({"query", "value"})}),
                  attach_propetl_lora};
  MethodSpec adapter{"propetl_adapter", "ProPETL-Adapter: one Pfeiffer adapter shared across layers, a learned mask per site",
                     with(adapter_shape_parameters(), {propetl_parameters(0.5, 3e-3), {adapter_placement_parameter()},
                                                       site_selection_parameters({}, R"((.*\.)?layer\.[0-9]+\.output\.dense)")}),
                     attach_propetl_adapter};
  MethodSpec prefix{"propetl_prefix", "ProPETL-Prefix: one MLP-generated prefix shared across layers, a learned mask per site",
                    with(prefix_shape_parameters(), {propetl_parameters(0.1, 1e-4), site_selection_parameters({"attention.self"})}),
                    attach_propetl_prefix};
  for (MethodSpec* method : {&lora, &adapter, &prefix}) {
    method->training_hooks = mask_learning_rate;
    register_method(std::move(*method));
  }
  return true;
}();

}  // namespace
}  // namespace capaboost
