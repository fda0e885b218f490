#include "data/glue_task.h"

#include <torch/torch.h>

#include <cctype>

namespace capaboost {
namespace {

// Names compare case-insensitively with '-' and '_' dropped, so "SST-2", "sst2" and "Sst_2" agree.
std::string normalise(const std::string& name) {
  std::string key;
  for (char c : name) {
    if (c != '-' && c != '_') key.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return key;
}

TaskInfo classification(std::string name, std::string hf_name, std::vector<std::string> label_names,
                        std::vector<std::string> label_tokens) {
  TaskInfo task;
  task.folder = name;
  task.name = std::move(name);
  task.hf_name = std::move(hf_name);
  task.num_labels = static_cast<int64_t>(label_names.size());
  task.label_names = std::move(label_names);
  task.label_tokens = std::move(label_tokens);
  task.metric_names = {"accuracy"};
  task.selection_metrics = {"accuracy"};
  return task;
}

std::vector<TaskInfo> build_tasks() {
  std::vector<TaskInfo> tasks;

  // CoLA train/dev: no header; source, label, original mark ("*" etc.), sentence.
  TaskInfo cola = classification("CoLA", "cola", {"unacceptable", "acceptable"}, {"0", "1"});
  cola.text_a_column = "sentence";
  cola.label_column = "label";
  cola.headerless_columns = {"source", "label", "original_label", "sentence"};
  cola.metric_names = {"matthews_correlation"};
  cola.selection_metrics = {"matthews_correlation"};
  tasks.push_back(cola);

  TaskInfo sst2 = classification("SST-2", "sst2", {"negative", "positive"}, {"0", "1"});
  sst2.text_a_column = "sentence";
  sst2.label_column = "label";
  sst2.large = true;
  tasks.push_back(sst2);

  // MRPC train/dev headers start with a UTF-8 BOM; the label column is "Quality".
  TaskInfo mrpc = classification("MRPC", "mrpc", {"not_equivalent", "equivalent"}, {"0", "1"});
  mrpc.text_a_column = "#1 String";
  mrpc.text_b_column = "#2 String";
  mrpc.label_column = "Quality";
  mrpc.metric_names = {"accuracy", "f1"};
  mrpc.selection_metrics = {"accuracy", "f1"};
  tasks.push_back(mrpc);

  TaskInfo qqp = classification("QQP", "qqp", {"not_duplicate", "duplicate"}, {"0", "1"});
  qqp.text_a_column = "question1";
  qqp.text_b_column = "question2";
  qqp.label_column = "is_duplicate";
  qqp.metric_names = {"accuracy", "f1"};
  qqp.selection_metrics = {"accuracy", "f1"};
  qqp.large = true;
  tasks.push_back(qqp);

  TaskInfo stsb;
  stsb.name = stsb.folder = "STS-B";
  stsb.hf_name = "stsb";
  stsb.regression = true;
  stsb.num_labels = 1;
  stsb.text_a_column = "sentence1";
  stsb.text_b_column = "sentence2";
  stsb.label_column = "score";
  stsb.metric_names = {"pearson", "spearmanr"};
  stsb.selection_metrics = {"pearson", "spearmanr"};
  tasks.push_back(stsb);

  // MNLI: dev/test come as matched and mismatched files; the label is the last column, gold_label.
  TaskInfo mnli = classification("MNLI", "mnli", {"entailment", "neutral", "contradiction"},
                                 {"entailment", "neutral", "contradiction"});
  mnli.text_a_column = "sentence1";
  mnli.text_b_column = "sentence2";
  mnli.label_column = "gold_label";
  mnli.large = true;
  tasks.push_back(mnli);

  TaskInfo qnli =
      classification("QNLI", "qnli", {"entailment", "not_entailment"}, {"entailment", "not_entailment"});
  qnli.text_a_column = "question";
  qnli.text_b_column = "sentence";
  qnli.label_column = "label";
  qnli.large = true;
  tasks.push_back(qnli);

  TaskInfo rte =
      classification("RTE", "rte", {"entailment", "not_entailment"}, {"entailment", "not_entailment"});
  rte.text_a_column = "sentence1";
  rte.text_b_column = "sentence2";
  rte.label_column = "label";
  tasks.push_back(rte);

  // The appendix ablations' SST-2-10k: "10k data examples uniformly sampled from the original SST-2".
  TaskInfo sst2_10k = sst2;
  sst2_10k.name = "SST-2-10k";
  sst2_10k.train_subset = 10000;
  tasks.push_back(sst2_10k);
  return tasks;
}

}  // namespace

std::string to_string(GlueFile file) {
  switch (file) {
    case GlueFile::kTrain:
      return "train";
    case GlueFile::kDev:
      return "dev";
    case GlueFile::kTest:
      return "test";
    case GlueFile::kDevMismatched:
      return "dev_mismatched";
    case GlueFile::kTestMismatched:
      return "test_mismatched";
  }
  return "?";
}

std::string TaskInfo::file_name(GlueFile file) const {
  const bool mnli = folder == "MNLI";
  switch (file) {
    case GlueFile::kTrain:
      return "train.tsv";
    case GlueFile::kDev:
      return mnli ? "dev_matched.tsv" : "dev.tsv";
    case GlueFile::kTest:
      return mnli ? "test_matched.tsv" : "test.tsv";
    case GlueFile::kDevMismatched:
    case GlueFile::kTestMismatched:
      TORCH_CHECK(mnli, "task ", name, " has no ", to_string(file),
                  " file; only MNLI has mismatched dev/test");
      return file == GlueFile::kDevMismatched ? "dev_mismatched.tsv" : "test_mismatched.tsv";
  }
  return "";
}

const std::vector<TaskInfo>& glue_tasks() {
  static const std::vector<TaskInfo> tasks = build_tasks();
  return tasks;
}

const TaskInfo& glue_task(const std::string& name) {
  const std::string key = normalise(name);
  std::string valid;
  for (const auto& task : glue_tasks()) {
    if (normalise(task.name) == key || normalise(task.hf_name) == key) return task;
    valid += (valid.empty() ? "" : ", ") + task.name;
  }
  TORCH_CHECK(false, "unknown GLUE task '", name, "'; choose one of ", valid);
}

}  // namespace capaboost
