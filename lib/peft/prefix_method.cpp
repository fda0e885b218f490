// The `prefix` method: prefix tuning (peft/prefix_tuning.h) on the target attention sites, through
// one reparameterisation MLP shared by all of them (mlp_hidden 0 trains plain prefixes).
// Defaults: l = 64, the paper's RoBERTa-base budget (0.95%); an MLP of width 512, adapter-transformers'
// prefix bottleneck, in whose code ProPETL (Zeng et al., 2023) ran the prefix rows Table 2 reports.

#include "peft/method_parameters.h"
#include "peft/method_registry.h"
#include "peft/prefix_tuning.h"
#include "sites/site_parameters.h"

namespace capaboost {
namespace {

ParameterList prefix_parameters() {
  ParameterList parameters = prefix_shape_parameters();
  const auto sites = site_selection_parameters({"attention.self"});
  parameters.insert(parameters.end(), sites.begin(), sites.end());
  return parameters;
}

std::vector<std::string> attach_prefix(torch::nn::Module& model, const Parameters& config) {
  const auto options = PrefixOptions(config.get<int64_t>("prefix_length"))
                           .mlp_hidden(config.get<int64_t>("prefix_mlp_hidden"));
  const SiteSelector selector = site_selector(config);
  // The shared MLP has one slice per selected site, so it is sized before any site is attached.
  int64_t selected = 0, width = 0;
  for (const auto& [name, attention] : find_attention_sites(model)) {
    if (!selector.matches(name)) continue;
    const int64_t site_width = attention->num_heads() * attention->head_size();
    TORCH_CHECK(width == 0 || width == site_width, "prefix: attention sites of different widths (", width, " and ",
                site_width, " at '", name, "'); select sites of one width");
    width = site_width;
    ++selected;
  }
  PrefixEncoder encoder{nullptr};
  if (options.mlp_hidden() > 0 && selected > 0) {
    encoder = PrefixEncoder(options.length(), width, options.mlp_hidden(), selected);
  }
  int64_t layer = 0;
  return attach_key_value_tuners(model, selector, [&](const std::string&, const AttentionSiteImpl& attention) {
    const int64_t index = layer++;
    if (encoder.is_empty()) {
      return std::make_shared<PrefixTuningImpl>(options.length(), attention.num_heads(), attention.head_size());
    }
    return std::make_shared<PrefixTuningImpl>(encoder, index, /*owns_encoder=*/index == 0, attention.num_heads(),
                                              attention.head_size());
  });
}

[[maybe_unused]] const bool registered_prefix_method = register_method(
    {"prefix", "prefix tuning (Li & Liang, 2021): l learned keys and values per attention site, trained through a shared MLP",
     prefix_parameters(), attach_prefix});

}  // namespace
}  // namespace capaboost
