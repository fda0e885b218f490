#include "measures/measure_registry.h"

#include "util/registry.h"

namespace capaboost::harness {
namespace {

Registry<MeasureSpec>& measures() {
  static Registry<MeasureSpec> registry("measure");
  return registry;
}

}  // namespace

bool register_measure(MeasureSpec measure) {
  TORCH_CHECK(measure.run, "register_measure: measure '", measure.name, "' has no run function");
  TORCH_CHECK(!measure.metrics.empty(), "register_measure: measure '", measure.name,
              "' declares no metrics; list every metric its runs record (MeasureSpec::metrics)");
  measure.parameters = owned(std::move(measure.parameters), "measure " + measure.name);
  measures().add(std::move(measure));
  return true;
}

const MeasureSpec& find_measure(const std::string& name) { return measures().find(name); }

std::vector<std::string> measure_names() { return measures().names(); }

bool declares_metric(const MeasureSpec& measure, const std::string& metric) {
  for (const auto& def : measure.metrics) {
    if (def.name == metric) return true;
    if (!def.name.empty() && def.name.back() == '*' && metric.size() >= def.name.size() &&
        metric.compare(0, def.name.size() - 1, def.name, 0, def.name.size() - 1) == 0) {
      return true;
    }
  }
  return false;
}

ParameterDef seed_parameter() {
  // 42 is the first of the paper's seeds (42, 43, 44) and the reference code's.
  return ParameterDef::integer("seed", "run seed (weights of new modules, data order, dropout)")
      .defaults_to(42)
      .at_least(0)
      .owned_by("every measure");
}

ParameterList run_parameters(const MeasureSpec& measure) {
  ParameterList parameters{seed_parameter()};
  parameters.insert(parameters.end(), measure.parameters.begin(), measure.parameters.end());
  return parameters;
}

}  // namespace capaboost::harness
