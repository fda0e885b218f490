#include "measures/plugin_parameters.h"

#include "backbones/backbone_registry.h"
#include "peft/method_registry.h"
#include "tasks/task_registry.h"

namespace capaboost::harness {

ParameterDef method_parameter() {
  return ParameterDef::text("method", "PEFT method (see `capaboost methods`)")
      .one_of(method_names)
      .selects([](const nlohmann::json& value) { return find_method(value.get<std::string>()).parameters; });
}

ParameterDef task_parameter() {
  return ParameterDef::text("task", "dataset / task (see `capaboost tasks`)")
      .one_of(task_names)
      .selects([](const nlohmann::json& value) { return find_task(value.get<std::string>()).parameters; });
}

ParameterDef model_parameter() {
  return ParameterDef::text("model", "backbone: a named one (see `capaboost models`) or a Hugging Face-layout directory")
      .checked_by([](const nlohmann::json& value, const nlohmann::json&) {
        const std::string problem = check_backbone_name(value.get<std::string>());
        return problem.empty() ? problem : "unknown model '" + value.get<std::string>() + "': " + problem;
      });
}

}  // namespace capaboost::harness
