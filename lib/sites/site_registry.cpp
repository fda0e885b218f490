#include "sites/site_registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <regex>

namespace capaboost {

std::vector<std::pair<std::string, std::shared_ptr<TunableLinearImpl>>> find_sites(torch::nn::Module& model) {
  std::vector<std::pair<std::string, std::shared_ptr<TunableLinearImpl>>> sites;
  for (const auto& item : model.named_modules(/*name_prefix=*/"", /*include_self=*/false)) {
    if (auto site = std::dynamic_pointer_cast<TunableLinearImpl>(item.value())) {
      sites.emplace_back(item.key(), site);
    }
  }
  return sites;
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
  std::vector<std::string> attached;
  for (auto& [name, site] : find_sites(model)) {
    if (!selector.matches(name)) continue;
    site->attach(factory(name, *site));
    attached.push_back(name);
  }
  TORCH_CHECK(!attached.empty(), "attach_tuners: no site matches suffixes [",
              fmt::format("{}", fmt::join(selector.suffixes, ", ")), "]",
              selector.regex ? " or regex '" + *selector.regex + "'" : std::string(),
              "; the model's sites are named like '",
              find_sites(model).empty() ? std::string("(none)") : find_sites(model).front().first, "'");
  return attached;
}

void freeze_backbone(torch::nn::Module& model, const std::vector<std::string>& trainable_prefixes) {
  for (auto& param : model.named_parameters()) {
    bool trainable = false;
    for (const auto& prefix : trainable_prefixes) trainable |= param.key().rfind(prefix, 0) == 0;
    param.value().set_requires_grad(trainable);
  }
  for (auto& [name, site] : find_sites(model)) {
    if (site->tuner()) {
      for (auto& param : site->tuner()->parameters()) param.set_requires_grad(true);
    }
  }
}

}  // namespace capaboost
