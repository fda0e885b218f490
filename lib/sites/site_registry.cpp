#include "sites/site_registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <regex>

namespace capaboost {
namespace {

template <typename Module>
std::vector<std::pair<std::string, std::shared_ptr<Module>>> find_modules(torch::nn::Module& model) {
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> found;
  for (const auto& item : model.named_modules(/*name_prefix=*/"", /*include_self=*/false)) {
    if (auto module = std::dynamic_pointer_cast<Module>(item.value())) found.emplace_back(item.key(), module);
  }
  return found;
}

// The name a selector matches for a site: its own, except a residual site's, which is its projection's.
std::string selected_name(const std::string& name, const torch::nn::Module&) { return name; }
std::string selected_name(const std::string& name, const ResidualSiteImpl& site) {
  return name + "." + site.projection();
}

template <typename Site, typename Factory>
std::vector<std::string> attach_to(torch::nn::Module& model, const SiteSelector& selector, const Factory& factory,
                                   const char* what) {
  std::vector<std::string> attached;
  const auto sites = find_modules<Site>(model);
  for (const auto& [name, site] : sites) {
    if (!selector.matches(selected_name(name, *site))) continue;
    site->attach(factory(name, *site));
    attached.push_back(name);
  }
  TORCH_CHECK(!attached.empty(), "no ", what, " matches suffixes [", fmt::format("{}", fmt::join(selector.suffixes, ", ")),
              "]", selector.regex ? " or regex '" + *selector.regex + "'" : std::string(), "; the model's ", what,
              "s are named like '", sites.empty() ? std::string("(none)") : selected_name(sites.front().first, *sites.front().second), "'");
  return attached;
}

}  // namespace

std::vector<std::pair<std::string, std::shared_ptr<TunableLinearImpl>>> find_sites(torch::nn::Module& model) {
  return find_modules<TunableLinearImpl>(model);
}

std::vector<std::pair<std::string, std::shared_ptr<AttentionSiteImpl>>> find_attention_sites(torch::nn::Module& model) {
  return find_modules<AttentionSiteImpl>(model);
}

std::vector<std::pair<std::string, std::shared_ptr<ResidualSiteImpl>>> find_residual_sites(torch::nn::Module& model) {
  return find_modules<ResidualSiteImpl>(model);
}

std::vector<std::pair<std::string, TunerPtr>> find_tuners(torch::nn::Module& model) {
  return find_modules<TunerImpl>(model);
}

bool SiteSelector::matches(const std::string& site) const {
  for (const auto& suffix : suffixes) {
    if (site == suffix) return true;
    if (site.size() > suffix.size() &&
        site.compare(site.size() - suffix.size(), suffix.size(), suffix) == 0 &&
        site[site.size() - suffix.size() - 1] == '.') {
      return true;
    }
  }
  return regex && std::regex_match(site, std::regex(*regex));
}

std::vector<std::string> attach_tuners(torch::nn::Module& model, const SiteSelector& selector,
                                       const TunerFactory& factory) {
  return attach_to<TunableLinearImpl>(model, selector, factory, "linear site");
}

std::vector<std::string> attach_key_value_tuners(torch::nn::Module& model, const SiteSelector& selector,
                                                 const KeyValueTunerFactory& factory) {
  return attach_to<AttentionSiteImpl>(model, selector, factory, "attention site");
}

std::vector<std::string> attach_residual_tuners(torch::nn::Module& model, const SiteSelector& selector,
                                                const ResidualTunerFactory& factory) {
  return attach_to<ResidualSiteImpl>(model, selector, factory, "residual site");
}

void freeze_backbone(torch::nn::Module& model, const std::vector<std::string>& trainable_prefixes) {
  for (auto& param : model.named_parameters()) {
    bool trainable = false;
    for (const auto& prefix : trainable_prefixes) trainable |= param.key().rfind(prefix, 0) == 0;
    param.value().set_requires_grad(trainable);
  }
  for (auto& [name, tuner] : find_tuners(model)) {
    for (auto& param : tuner->parameters()) param.set_requires_grad(true);
  }
}

std::vector<std::string> tuner_tensor_names(torch::nn::Module& model) {
  std::vector<std::string> names;
  for (const auto& [name, tuner] : find_tuners(model)) {
    for (const auto& item : tuner->named_parameters()) names.push_back(name + "." + item.key());
    for (const auto& item : tuner->named_buffers()) names.push_back(name + "." + item.key());
  }
  return names;
}

}  // namespace capaboost
