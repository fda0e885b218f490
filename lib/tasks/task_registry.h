#pragma once
// The tasks a run's `task:` can name, as plugins: each declares its parameters (split protocol,
// training limit, input length, …), the head it needs, how to turn its data into training splits for a
// backbone's input processor, and the number the paper's tables print. GLUE registers its nine tasks
// (tasks/glue_tasks.cpp); question answering and image classification register theirs the same way.

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "metrics/chance_level.h"
#include "metrics/metric_values.h"
#include "models/task_model.h"
#include "params/parameter.h"
#include "params/parameters.h"
#include "train/trainer.h"

namespace capaboost {

/// A task's data made ready for training, with where it came from.
struct PreparedTask {
  TrainingData data;
  nlohmann::json provenance;  ///< files, digests, split sizes, protocol — for the run record
};

struct TaskSpec {
  std::string name;  ///< as the paper's tables print it ("CoLA", "SST-2-10k")
  std::string description;
  /// Folder under the data root holding the task's files (its digest joins run keys).
  std::string data_folder;
  /// What the task reads; definitions without an owner are owned by "task <name>".
  ParameterList parameters;
  TaskHead head;
  /// Throws MissingDataError (naming the download step) when the files `config` asks for are not
  /// under `data_root`: checked before a backbone is built, which can take minutes.
  std::function<void(const Parameters& config, const std::string& data_root)> require_data;
  /// Loads the data under `data_root`, splits it as `config` says and processes it for a backbone.
  std::function<PreparedTask(const Parameters& config, const InputProcessor& processor, const std::string& data_root)>
      prepare;
  /// The test number the paper's tables print (×100), from the test metrics.
  std::function<double(const MetricValues& test)> paper_score;
  /// What a model that learned nothing scores on the test split `config` makes (the split its test
  /// metrics are taken on), per test metric, and under "selection" the selection score's (a run's
  /// test_score); nullptr: the task declares no chance level (the report then never calls its rows "did
  /// not learn"). paper_score applied to the standard errors must bound the paper score's: true of the
  /// GLUE tasks, whose paper score is 100 × a metric or a mean of two.
  std::function<ChanceLevels(const Parameters& config, const std::string& data_root)> chance = nullptr;
};

bool register_task(TaskSpec task);
/// The task called `name`; the error suggests a close name and lists the registered ones.
const TaskSpec& find_task(const std::string& name);
std::vector<std::string> task_names();

}  // namespace capaboost
