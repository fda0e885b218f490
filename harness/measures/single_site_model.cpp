#include "measures/single_site_model.h"

#include <cstdio>

#include "sites/tunable_linear.h"

namespace capaboost::harness {

std::optional<std::pair<int64_t, int64_t>> site_shape(const std::string& model) {
  int out = 0, in = 0;
  char tail = 0;  // a trailing character means the name only starts like a site
  if (std::sscanf(model.c_str(), "site-%dx%d%c", &out, &in, &tail) != 2 || out <= 0 || in <= 0) return std::nullopt;
  return std::make_pair(static_cast<int64_t>(out), static_cast<int64_t>(in));
}

std::shared_ptr<torch::nn::Module> single_site_model(const std::string& model) {
  const auto shape = site_shape(model);
  TORCH_CHECK(shape, "a one-site measure needs model 'site-<out>x<in>' (e.g. site-768x768), got '", model, "'");
  auto module = std::make_shared<torch::nn::Module>();
  module->register_module("site", TunableLinear(shape->second, shape->first));
  return module;
}

ParameterDef single_site_model_parameter(const std::string& measure) {
  return ParameterDef::text("model", "'site-<out>x<in>': one linear site of that shape, named 'site'")
      .defaults_to("site-768x768")
      .checked_by([measure](const nlohmann::json& value, const nlohmann::json&) -> std::string {
        return site_shape(value.get<std::string>())
                   ? ""
                   : "the " + measure + " measure needs model 'site-<out>x<in>' (e.g. site-768x768), got '" +
                         value.get<std::string>() + "'";
      });
}

}  // namespace capaboost::harness
