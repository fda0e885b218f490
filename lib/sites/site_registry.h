#pragma once
// Finding a model's sites by name — linear sites (TunableLinear), attention sites (AttentionSite) and
// residual sites (ResidualSite) — and attaching tuners to them by suffix list or regex (like PEFT's
// `target_modules`).

#include <torch/torch.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sites/attention_site.h"
#include "sites/residual_site.h"
#include "sites/site_tuner.h"
#include "sites/tunable_linear.h"

namespace capaboost {

/// Every TunableLinear in `model`, with its dotted name, in registration order.
std::vector<std::pair<std::string, std::shared_ptr<TunableLinearImpl>>> find_sites(torch::nn::Module& model);

/// Every attention site in `model` ("encoder.layer.0.attention.self"), in registration order.
std::vector<std::pair<std::string, std::shared_ptr<AttentionSiteImpl>>> find_attention_sites(torch::nn::Module& model);

/// Every residual site in `model` ("encoder.layer.0.output"), in registration order.
std::vector<std::pair<std::string, std::shared_ptr<ResidualSiteImpl>>> find_residual_sites(torch::nn::Module& model);

/// Every attached tuner of any kind, with its dotted name ("…query.lora"), in registration order.
std::vector<std::pair<std::string, TunerPtr>> find_tuners(torch::nn::Module& model);

/// Which sites a tuner goes on. A site matches a suffix when its name equals it or ends with
/// "." + suffix ("query" matches "encoder.layer.0.attention.self.query"); a regex must match the
/// whole name. Either or both may be given; a site matching either is selected.
struct SiteSelector {
  std::vector<std::string> suffixes;
  std::optional<std::string> regex = std::nullopt;
  bool matches(const std::string& site) const;
};

/// Builds the tuner for one site from its name and the layer it adapts.
using TunerFactory = std::function<SiteTunerPtr(const std::string& site, const TunableLinearImpl& layer)>;

/// Attaches a tuner made by `factory` to every selected site; returns the names of those sites.
/// Fails, naming the selector, when nothing matches (a typo in a target list must not silently train
/// nothing).
std::vector<std::string> attach_tuners(torch::nn::Module& model, const SiteSelector& selector,
                                       const TunerFactory& factory);

/// Builds the key-value tuner for one attention site.
using KeyValueTunerFactory = std::function<KeyValueTunerPtr(const std::string& site, const AttentionSiteImpl& attention)>;

/// attach_tuners for attention sites.
std::vector<std::string> attach_key_value_tuners(torch::nn::Module& model, const SiteSelector& selector,
                                                 const KeyValueTunerFactory& factory);

/// Builds the tuner for one residual site from its name and the site.
using ResidualTunerFactory = std::function<SiteTunerPtr(const std::string& site, const ResidualSiteImpl& residual)>;

/// attach_tuners for residual sites, which `selector` names by their projection's full name: suffix
/// "output.dense" selects the block "encoder.layer.0.output" that adds "encoder.layer.0.output.dense".
std::vector<std::string> attach_residual_tuners(torch::nn::Module& model, const SiteSelector& selector,
                                                const ResidualTunerFactory& factory);

/// Makes every parameter untrainable except the tuners' and those whose names start with one of
/// `trainable_prefixes` (e.g. the classification head "classifier.").
void freeze_backbone(torch::nn::Module& model, const std::vector<std::string>& trainable_prefixes = {});

/// Names of every parameter and buffer that belongs to an attached tuner (`<site>.<kind>.<name>`), so
/// checkpoint code can leave them out of a backbone's state dict.
std::vector<std::string> tuner_tensor_names(torch::nn::Module& model);

}  // namespace capaboost
