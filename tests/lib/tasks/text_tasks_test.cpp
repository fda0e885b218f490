// The text task plugins (GLUE, SQuAD): which epoch a run reports (`epoch_selection`, tasks/epoch_selection.h).

#include <catch2/catch.hpp>

#include <algorithm>

#include "lib/train/train_test_support.h"
#include "params/parameters.h"
#include "tasks/task_registry.h"
#include "lib/tasks/task_test_support.h"

using namespace capaboost;
using namespace capaboost::test;

namespace {

InputProcessor roberta_processor() {
  InputProcessor processor;
  processor.tokenizer = roberta_tokenizer();
  processor.max_length = 514;
  return processor;
}

}  // namespace

TEST_CASE("every text task declares epoch_selection: best by default, and out of run keys there", "[tasks][text]") {
  for (const char* name : {"CoLA", "SST-2", "MRPC", "QQP", "STS-B", "MNLI", "QNLI", "RTE", "SST-2-10k", "SQuADv1.1",
                           "SQuADv2.0"}) {
    INFO(name);
    const TaskSpec& task = find_task(name);
    const auto def = std::find_if(task.parameters.begin(), task.parameters.end(),
                                  [](const ParameterDef& d) { return d.name == "epoch_selection"; });
    REQUIRE(def != task.parameters.end());
    // `best` is what every run recorded before the parameter existed did; it keeps their keys.
    CHECK(def->fallback == "best");
    CHECK_FALSE(def->keyed_at_default);
    CHECK(check_value(*def, "last").empty());
    CHECK_THAT(check_value(*def, "final"), Catch::Contains("best") && Catch::Contains("last"));
  }
}

TEST_CASE("epoch_selection last reports the last epoch: AdaLoRA's protocol without model selection", "[tasks][text]") {
  REQUIRE_MIRROR_AND_TOKENIZER("RTE");
  const TaskSpec& task = find_task("RTE");
  const std::string root = mirror_root().path.string();
  const auto selected = task.prepare(task_config(task, {{"protocol", "adalora"}, {"train_limit", 16}}), roberta_processor(), root);
  CHECK(selected.data.eval_is_test);  // dev is the test set under AdaLoRA's protocol …
  CHECK_FALSE(selected.data.report_last_epoch);  // … and `best` picks the epoch on it
  CHECK(selected.provenance.at("epoch_selection") == "best");
  const auto last = task.prepare(task_config(task, {{"protocol", "adalora"}, {"train_limit", 16}, {"epoch_selection", "last"}}),
                                 roberta_processor(), root);
  CHECK(last.data.eval_is_test);
  CHECK(last.data.report_last_epoch);
  CHECK(last.provenance.at("epoch_selection") == "last");
  CHECK(last.data.eval->size() == selected.data.eval->size());
  // ProPETL's protocol keeps its held-out selection unless asked otherwise.
  const auto propetl = task.prepare(task_config(task, {{"train_limit", 16}}), roberta_processor(), root);
  CHECK_FALSE(propetl.data.eval_is_test);
  CHECK_FALSE(propetl.data.report_last_epoch);
}

TEST_CASE("SQuAD's epoch_selection last reports the model training ends with, as run_qa.py does", "[tasks][text]") {
  REQUIRE_MIRROR_AND_TOKENIZER("RTE");
  if (!std::filesystem::exists(mirror_root().path / "SQuAD" / "sample-hf-v2-format.json")) {
    WARN("skipped: SQuAD/sample-hf-v2-format.json is not in the mirror");
    return;
  }
  const TaskSpec& task = find_task("SQuADv2.0");
  const nlohmann::json split = {{"protocol", "article-split"}, {"split_file", "sample-hf-v2-format.json"},
                                {"max_length", 64}, {"doc_stride", 16}};
  nlohmann::json last_config = split;
  last_config["epoch_selection"] = "last";
  const std::string root = mirror_root().path.string();
  CHECK_FALSE(task.prepare(task_config(task, split), roberta_processor(), root).data.report_last_epoch);
  const auto last = task.prepare(task_config(task, last_config), roberta_processor(), root);
  CHECK(last.data.report_last_epoch);
  CHECK(last.provenance.at("epoch_selection") == "last");
}
