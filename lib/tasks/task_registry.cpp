#include "tasks/task_registry.h"

#include "util/registry.h"

namespace capaboost {
namespace {

Registry<TaskSpec>& tasks() {
  static Registry<TaskSpec> registry("task");
  return registry;
}

}  // namespace

bool register_task(TaskSpec task) {
  TORCH_CHECK(task.require_data && task.prepare && task.paper_score, "register_task: task '", task.name,
              "' needs require_data, prepare and paper_score functions");
  task.parameters = owned(std::move(task.parameters), "task " + task.name);
  tasks().add(std::move(task));
  return true;
}

const TaskSpec& find_task(const std::string& name) { return tasks().find(name); }

std::vector<std::string> task_names() { return tasks().names(); }

}  // namespace capaboost
