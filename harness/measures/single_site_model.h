#pragma once
// The one-site model of the measures that study a parameterisation in isolation (`rank`,
// `capacity`): model "site-<out>x<in>" is one TunableLinear(in, out) registered as "site", so a
// method attaches to it with `targets: [site]`.

#include <torch/torch.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "params/parameter.h"

namespace capaboost::harness {

/// (out, in) of "site-<out>x<in>", or nullopt when `model` is not of that form.
std::optional<std::pair<int64_t, int64_t>> site_shape(const std::string& model);

/// The model "site-<out>x<in>" names; a contract error for any other name.
std::shared_ptr<torch::nn::Module> single_site_model(const std::string& model);

/// The `model` parameter of a one-site measure, defaulting to site-768x768 (RoBERTa-base's projections).
ParameterDef single_site_model_parameter(const std::string& measure);

}  // namespace capaboost::harness
