// A test-only PEFT variant, written as a user would write one: LoRA with CapaBoost branches whose
// masks follow a rule of its own instead of random draws — branch i of d keeps the stripes
// ⌊j / stripe_width⌋ mod d = i of the site's input columns j in A (r, in) and of its output rows j in
// B (out, r). The branches see disjoint blocks, so ΔW = Σᵢ (B⊙Mbᵢ)(A⊙Maᵢ) has rank d·r with every
// factor entry seen by exactly one branch. It lives
// outside lib/ and harness/, declares its own parameter (`stripe_width`) and registers itself; CMake
// compiles it into the test binary and, through capaboost_add_program, into a capaboost program
// (tests/CMakeLists.txt). It is also the worked example of the README's "Your own variant".

#include "capaboost/branch_stack.h"
#include "peft/lora.h"
#include "peft/method_registry.h"
#include "sites/site_parameters.h"

namespace capaboost::test_variants {
namespace {

// Stripes of A's columns (the site's inputs) and of B's rows (the site's outputs).
MaskRule stripes(int64_t width, int64_t branches) {
  return [width, branches](const MaskKey& key, torch::IntArrayRef shape) {
    const bool along_columns = key.factor == "A";
    const auto index = torch::arange(shape[along_columns ? 1 : 0], torch::kLong);
    const auto kept = index.div(width, "floor").remainder(branches).eq(key.branch);
    auto mask = along_columns ? kept.unsqueeze(0) : kept.unsqueeze(1);  // (1, in) or (out, 1)
    return mask.expand({shape[0], shape[1]}).contiguous();             // (rows, inputs)
  };
}

ParameterList striped_lora_parameters() {
  const LoraOptions lora;
  ParameterList parameters{
      ParameterDef::integer("rank", "LoRA rank r").defaults_to(lora.rank()).at_least(1),
      ParameterDef::number("alpha", "LoRA alpha (scale alpha/r)").defaults_to(lora.alpha()).above(0),
      ParameterDef::integer("branches", "CapaBoost d, the number of weight-tied branches").defaults_to(2).at_least(1),
      ParameterDef::integer("stripe_width", "input columns per stripe; branch i keeps stripes i, i+d, …")
          .defaults_to(1)
          .at_least(1),
  };
  const auto sites = site_selection_parameters({"query", "value"});
  parameters.insert(parameters.end(), sites.begin(), sites.end());
  return parameters;
}

std::vector<std::string> attach_striped_lora(torch::nn::Module& model, const Parameters& config) {
  const int64_t branches = config.get<int64_t>("branches");
  const auto boost = CapaBoostOptions()
                         .branches(branches)
                         .mask(MaskOptions().kind(MaskKind::kDiff))
                         .rule(stripes(config.get<int64_t>("stripe_width"), branches));
  const auto options = LoraOptions(config.get<int64_t>("rank")).alpha(config.get<double>("alpha")).capaboost(boost);
  return attach_tuners(model, site_selector(config), [&](const std::string& site, const TunableLinearImpl& layer) -> SiteTunerPtr {
    return std::make_shared<LoraImpl>(options, site, layer.options.in_features(), layer.options.out_features());
  });
}

[[maybe_unused]] const bool registered = register_method(
    {"striped-lora", "test variant: CapaBoost-LoRA whose branches keep disjoint input stripes",
     striped_lora_parameters(), attach_striped_lora});

}  // namespace
}  // namespace capaboost::test_variants
