#pragma once
// The eight GLUE tasks the paper uses (CoLA, SST-2, MRPC, QQP, STS-B, MNLI, QNLI, RTE) plus the
// SST-2-10k ablation set: where their files live, how their TSV columns are laid out, their label
// vocabularies (in the order Hugging Face `datasets` and GLUE use) and their metrics.

#include <cstdint>
#include <string>
#include <vector>

namespace capaboost {

/// One file of a GLUE task folder. The `*Mismatched` files exist for MNLI only.
enum class GlueFile { kTrain, kDev, kTest, kDevMismatched, kTestMismatched };
std::string to_string(GlueFile file);

/// Everything the loaders, split protocols and metrics need to know about one task.
struct TaskInfo {
  std::string
      name;  ///< canonical name: "CoLA", "SST-2", "MRPC", "QQP", "STS-B", "MNLI", "QNLI", "RTE", "SST-2-10k"
  std::string folder;       ///< folder under the data root ("SST-2" also for SST-2-10k)
  std::string hf_name;      ///< Hugging Face `datasets` glue config: "cola", "sst2", …
  bool regression = false;  ///< STS-B: the label is a similarity score in [0, 5]
  int64_t num_labels = 0;   ///< classifier outputs: number of classes, 1 for regression
  /// Class names in index order (Hugging Face ClassLabel order); empty for regression.
  std::vector<std::string> label_names;
  /// How class i is written in the TSV label column (e.g. "0"/"1", or "entailment"/"not_entailment").
  std::vector<std::string> label_tokens;
  std::string text_a_column;  ///< header name of the first sentence column
  std::string text_b_column;  ///< header name of the second sentence column; empty for single-sentence tasks
  std::string label_column;   ///< header name of the label (or score) column
  /// For tasks whose train/dev files have no header row (CoLA): the names of their columns, in order.
  /// Empty when the labeled files start with a header row. Test files always have a header.
  std::vector<std::string> headerless_columns;
  /// Metrics reported for the task, named as Hugging Face `evaluate`'s glue metric names them:
  /// "matthews_correlation", "accuracy", "f1", "pearson", "spearmanr".
  std::vector<std::string> metric_names;
  /// Model selection score = the mean of these metrics (MCC for CoLA; accuracy for SST-2, QNLI, RTE,
  /// MNLI; the mean of the two reported metrics for MRPC, QQP, STS-B).
  std::vector<std::string> selection_metrics;
  /// ProPETL's "large" group (SST-2, QNLI, QQP, MNLI): its eval set is held out of train and dev is test.
  bool large = false;
  /// If > 0, training uses this many examples drawn uniformly with the split seed (SST-2-10k: 10,000).
  int64_t train_subset = 0;

  bool is_pair() const { return !text_b_column.empty(); }
  /// File name inside the task folder, e.g. "dev_matched.tsv" for MNLI's dev.
  std::string file_name(GlueFile file) const;
};

/// The nine task descriptions (eight GLUE tasks and SST-2-10k), in the paper's table order.
const std::vector<TaskInfo>& glue_tasks();

/// Looks a task up by its GLUE name or Hugging Face config name, case-insensitively and ignoring
/// '-' and '_' ("CoLA", "cola", "SST-2", "sst2", "sts-b", "stsb", "sst-2-10k", …). Unknown names are an
/// error listing the valid ones.
const TaskInfo& glue_task(const std::string& name);

}  // namespace capaboost
