#include "train/tokenized_dataset.h"

#include <algorithm>

#include "data/padded_rows.h"
#include "metrics/glue_metrics.h"
#include "train/glue_scorer.h"

namespace capaboost {

TokenizedDataset TokenizedDataset::tokenize(const std::vector<Example>& examples, const Tokenizer& tokenizer,
                                            const TaskInfo& task, int64_t max_length) {
  TORCH_CHECK(max_length > 2, "TokenizedDataset: max_length must leave room for text, got ", max_length);
  TokenizedDataset dataset;
  dataset.task_ = &task;
  dataset.max_length_ = max_length;
  dataset.pad_id_ = tokenizer.pad_id();
  // Labels first: class_labels/score_labels name the offending line when a label is missing.
  if (task.regression) {
    dataset.score_labels_ = capaboost::score_labels(examples);
  } else {
    dataset.class_labels_ = capaboost::class_labels(examples);
  }
  const auto options = EncodeOptions().truncation(true).max_length(max_length);
  dataset.ids_.reserve(examples.size());
  for (const auto& example : examples) {
    TORCH_CHECK(!task.is_pair() || example.text_b.has_value(), "TokenizedDataset: ", task.name,
                " is a sentence-pair task but the example at line ", example.line, " has no second sentence");
    const auto encoding = task.is_pair()
                              ? tokenizer.encode(example.text_a, std::string_view(*example.text_b), options)
                              : tokenizer.encode(example.text_a, std::nullopt, options);
    dataset.ids_.push_back(encoding.input_ids);
    if (!encoding.token_type_ids.empty()) {
      const auto& types = encoding.token_type_ids;
      dataset.first_segments_.push_back(std::find(types.begin(), types.end(), 1) - types.begin());
    }
  }
  return dataset;
}

int64_t TokenizedDataset::total_tokens() const {
  int64_t total = 0;
  for (const auto& ids : ids_) total += static_cast<int64_t>(ids.size());
  return total;
}

Batch TokenizedDataset::collate(const std::vector<int64_t>& indices, BatchPadding padding) const {
  TORCH_CHECK(!indices.empty(), "TokenizedDataset::collate: empty batch");
  const auto batch_size = static_cast<int64_t>(indices.size());
  std::vector<const std::vector<int64_t>*> rows;
  std::vector<int64_t> first_segments;
  for (int64_t index : indices) {
    TORCH_CHECK(index >= 0 && index < size(), "TokenizedDataset::collate: index ", index, " outside [0, ", size(), ")");
    rows.push_back(&ids_[static_cast<size_t>(index)]);
    if (!first_segments_.empty()) first_segments.push_back(first_segments_[static_cast<size_t>(index)]);
  }
  Batch batch = padded_text_batch(indices, rows, padding == BatchPadding::kMaxLength ? max_length_ : 0, pad_id_,
                                  first_segments_.empty() ? nullptr : &first_segments);
  if (regression()) {
    batch.labels = torch::empty({batch_size}, torch::kFloat32);
    auto labels = batch.labels.accessor<float, 1>();
    for (int64_t row = 0; row < batch_size; ++row) {
      labels[row] = static_cast<float>(score_labels_[static_cast<size_t>(indices[static_cast<size_t>(row)])]);
    }
  } else {
    batch.labels = torch::empty({batch_size}, torch::kInt64);
    auto labels = batch.labels.accessor<int64_t, 1>();
    for (int64_t row = 0; row < batch_size; ++row) {
      labels[row] = class_labels_[static_cast<size_t>(indices[static_cast<size_t>(row)])];
    }
  }
  return batch;
}

std::unique_ptr<SplitScorer> TokenizedDataset::scorer() const { return std::make_unique<GlueScorer>(*this); }

}  // namespace capaboost
