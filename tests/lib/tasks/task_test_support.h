#pragma once
// A task plugin's run configuration for tests: every parameter it declares at its default, seed 42,
// then the given values.

#include <nlohmann/json.hpp>

#include "params/parameters.h"
#include "tasks/task_registry.h"

namespace capaboost::test {

inline Parameters task_config(const TaskSpec& task, const nlohmann::json& values) {
  nlohmann::json config = {{"seed", 42}};
  for (const auto& definition : task.parameters) config[definition.name] = definition.fallback;
  if (values.is_object()) config.update(values);
  return Parameters(config);
}

}  // namespace capaboost::test
