#include "train/squad_split.h"

#include "data/padded_rows.h"

namespace capaboost {
namespace {

class SquadScorer : public SplitScorer {
 public:
  explicit SquadScorer(const SquadSplit& split) : split_(split), scores_(split.features().size()) {}

  // outputs: (B, T, 2) start and end logits for the features batch.indices.
  void add(const torch::Tensor& outputs, const Batch& batch) override {
    const auto count = static_cast<int64_t>(batch.indices.size());
    TORCH_CHECK(outputs.dim() == 3 && outputs.size(0) == count && outputs.size(2) == 2, "SquadScorer: outputs ",
                outputs.sizes(), " are not (", count, ", T, 2) span logits");
    const auto logits = outputs.to(torch::kFloat32).contiguous();
    const auto view = logits.accessor<float, 3>();
    for (int64_t row = 0; row < count; ++row) {
      const auto index = static_cast<size_t>(batch.indices[static_cast<size_t>(row)]);
      const auto length = static_cast<int64_t>(split_.features().at(index).input_ids.size());
      TORCH_CHECK(length <= outputs.size(1), "SquadScorer: feature ", index, " has ", length, " tokens, outputs ",
                  outputs.size(1));
      SpanScores& scores = scores_[index];
      scores.start.resize(static_cast<size_t>(length));
      scores.end.resize(static_cast<size_t>(length));
      for (int64_t t = 0; t < length; ++t) {
        scores.start[static_cast<size_t>(t)] = view[row][t][0];
        scores.end[static_cast<size_t>(t)] = view[row][t][1];
      }
      ++added_;
    }
  }

  Score finish() override {
    TORCH_CHECK(added_ == static_cast<int64_t>(scores_.size()), "SquadScorer: ", added_, " of ", scores_.size(),
                " windows were scored; a question's answer needs all of its windows");
    const SquadDataset& dataset = split_.dataset();
    const bool v2 = dataset.major_version == 2;
    auto options = split_.postprocess();
    options.with_no_answer(v2);
    const SquadAnswers answers = postprocess_squad(dataset.questions, split_.features(), scores_, options);
    // The null score differences are the no-answer scores; with the threshold the answers were chosen
    // by, the script's main numbers are those of the answers as given.
    const auto evaluation = v2 ? evaluate_squad_v2(dataset, answers.predictions, answers.null_score_diffs,
                                                   options.null_score_diff_threshold())
                               : evaluate_squad_v1(dataset, answers.predictions);
    Score score;
    score.metrics = squad_metric_values(evaluation);
    score.selection = score.metrics.at("f1");
    return score;
  }

 private:
  const SquadSplit& split_;
  std::vector<SpanScores> scores_;
  int64_t added_ = 0;
};

}  // namespace

MetricValues squad_metric_values(const nlohmann::ordered_json& evaluation) {
  MetricValues metrics;
  for (const auto& [key, value] : evaluation.items()) {
    if (!value.is_number()) continue;
    const bool count = key == "total" || (key.size() > 6 && key.compare(key.size() - 6, 6, "_total") == 0);
    const bool threshold = key.size() > 7 && key.compare(key.size() - 7, 7, "_thresh") == 0;
    // v2.0's "exact" is v1.1's "exact_match": one name, so a table can hold both versions.
    const std::string name = key == "exact" ? "exact_match" : key.rfind("best_", 0) == 0 ? "oracle_" + key : key;
    metrics[name] = count || threshold ? value.get<double>() : value.get<double>() / 100.0;
  }
  return metrics;
}

SquadSplit::SquadSplit(SquadDataset dataset, const Tokenizer& tokenizer, const SquadFeatureOptions& features,
                       SquadPostprocessOptions postprocess)
    : dataset_(std::move(dataset)),
      features_(make_squad_features(dataset_.questions, tokenizer, features)),
      postprocess_(postprocess),
      max_length_(features.max_length()),
      pad_id_(tokenizer.pad_id()) {}

Batch SquadSplit::collate(const std::vector<int64_t>& indices, BatchPadding padding) const {
  TORCH_CHECK(!indices.empty(), "SquadSplit::collate: empty batch");
  const auto batch_size = static_cast<int64_t>(indices.size());
  std::vector<const std::vector<int64_t>*> rows;
  std::vector<int64_t> first_segments;
  auto starts = torch::empty({batch_size}, torch::kInt64);  // (B)
  auto ends = torch::empty({batch_size}, torch::kInt64);    // (B)
  auto start_at = starts.accessor<int64_t, 1>();
  auto end_at = ends.accessor<int64_t, 1>();
  for (int64_t row = 0; row < batch_size; ++row) {
    const int64_t index = indices[static_cast<size_t>(row)];
    TORCH_CHECK(index >= 0 && index < size(), "SquadSplit::collate: index ", index, " outside [0, ", size(), ")");
    const SquadFeature& feature = features_[static_cast<size_t>(index)];
    rows.push_back(&feature.input_ids);
    if (feature.first_segment) first_segments.push_back(*feature.first_segment);
    start_at[row] = feature.start_position;
    end_at[row] = feature.end_position;
  }
  Batch batch = padded_text_batch(indices, rows, padding == BatchPadding::kMaxLength ? max_length_ : 0, pad_id_,
                                  first_segments.empty() ? nullptr : &first_segments);
  batch.inputs["start_positions"] = starts;
  batch.inputs["end_positions"] = ends;
  return batch;
}

std::unique_ptr<SplitScorer> SquadSplit::scorer() const { return std::make_unique<SquadScorer>(*this); }

}  // namespace capaboost
