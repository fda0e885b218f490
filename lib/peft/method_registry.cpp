#include "peft/method_registry.h"

#include "peft/adapter.h"
#include "peft/lora.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <mutex>

namespace capaboost {
namespace {

template <typename T>
T get_or(const RunParameters& parameters, const char* key, T fallback) {
  return parameters.contains(key) ? parameters.at(key).get<T>() : fallback;
}

std::vector<std::string> attach_lora(torch::nn::Module& model, const RunParameters& parameters) {
  const int64_t rank = get_or<int64_t>(parameters, "rank", 8);
  // alpha_over_rank keeps α/r fixed across a rank sweep (the paper's rank ablation uses 1.5).
  const double alpha = parameters.contains("alpha_over_rank")
                           ? parameters.at("alpha_over_rank").get<double>() * static_cast<double>(rank)
                           : get_or<double>(parameters, "alpha", 16.0);
  auto options = LoraOptions(rank)
                     .alpha(alpha)
                     .dropout(get_or<double>(parameters, "lora_dropout", 0.0))
                     .init(parse_lora_init(get_or<std::string>(parameters, "lora_init", "peft")))
                     .capaboost(capaboost_options(parameters));
  return attach_tuners(model, site_selector(parameters), [&](const std::string& site, const TunableLinearImpl& layer) -> SiteTunerPtr {
    return std::make_shared<LoraImpl>(options, site, layer.options.in_features(), layer.options.out_features());
  });
}

std::vector<std::string> attach_adapter(torch::nn::Module& model, const RunParameters& parameters) {
  auto options = AdapterOptions(get_or<int64_t>(parameters, "bottleneck", 64))
                     .activation(parse_adapter_activation(get_or<std::string>(parameters, "activation", "relu")))
                     .capaboost(capaboost_options(parameters));
  return attach_tuners(model, site_selector(parameters), [&](const std::string& site, const TunableLinearImpl& layer) -> SiteTunerPtr {
    return std::make_shared<AdapterImpl>(options, site, layer.options.out_features());
  });
}

struct Registry {
  std::mutex mutex;
  std::map<std::string, MethodSpec> methods;
  Registry() {
    methods["lora"] = {"lora", "LoRA (Hu et al., 2022) on the target sites", attach_lora};
    methods["adapter"] = {"adapter", "bottleneck adapter on the target sites' outputs (Pfeiffer/Houlsby by targets)",
                          attach_adapter};
    // Full fine-tuning and BitFit add no modules: they differ from PEFT only in what trains.
    const auto attach_nothing = [](torch::nn::Module&, const RunParameters&) { return std::vector<std::string>{}; };
    methods["full"] = {"full", "full fine-tuning: every backbone parameter and the head train", attach_nothing,
                       TrainedParameters::kAll};
    methods["bitfit"] = {"bitfit", "BitFit: only the backbone's biases and the head train", attach_nothing,
                         TrainedParameters::kBiasesAndHead};
  }
};

Registry& registry() {
  static Registry instance;
  return instance;
}

}  // namespace

std::string to_string(TrainedParameters trained) {
  switch (trained) {
    case TrainedParameters::kTunersAndHead: return "tuners+head";
    case TrainedParameters::kAll: return "all";
    case TrainedParameters::kBiasesAndHead: return "biases+head";
  }
  return "?";
}

void register_method(MethodSpec method) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  TORCH_CHECK(!r.methods.count(method.name), "register_method: a method named '", method.name,
              "' is already registered");
  r.methods[method.name] = std::move(method);
}

const MethodSpec& find_method(const std::string& name) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.methods.find(name);
  if (it == r.methods.end()) {
    std::vector<std::string> names;
    for (const auto& entry : r.methods) names.push_back(entry.first);
    TORCH_CHECK(false, "unknown PEFT method '", name, "'; registered methods: ", fmt::format("{}", fmt::join(names, ", ")));
  }
  return it->second;
}

std::vector<std::string> method_names() {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& entry : r.methods) names.push_back(entry.first);
  return names;
}

CapaBoostOptions capaboost_options(const RunParameters& parameters) {
  const int64_t branches = get_or<int64_t>(parameters, "branches", 1);
  const std::string default_kind = branches > 1 ? "diff" : "none";
  MaskOptions mask;
  mask.kind(parse_mask_kind(get_or<std::string>(parameters, "mask", default_kind)))
      .density(get_or<double>(parameters, "density", 0.5))
      .seed(get_or<uint64_t>(parameters, "mask_seed", 0));
  if (parameters.contains("nm")) {
    const auto nm = parameters.at("nm").get<std::string>();
    int n = 0, m = 0;
    TORCH_CHECK(std::sscanf(nm.c_str(), "%d:%d", &n, &m) == 2, "nm must look like '2:4', got '", nm, "'");
    mask.n(n).m(m);
  }
  return CapaBoostOptions().branches(branches).mask(mask);
}

SiteSelector site_selector(const RunParameters& parameters) {
  SiteSelector selector;
  if (parameters.contains("targets")) selector.suffixes = parameters.at("targets").get<std::vector<std::string>>();
  if (parameters.contains("target_regex")) selector.regex = parameters.at("target_regex").get<std::string>();
  return selector;
}

}  // namespace capaboost
