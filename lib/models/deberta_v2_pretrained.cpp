#include "models/deberta_v2_pretrained.h"

namespace capaboost {
namespace {

std::string head_pattern(const std::string& prefix) {
  return prefix.substr(0, prefix.size() - 1) + R"(\..*)";  // "pooler." → "pooler\..*"
}

}  // namespace

StateDictLoadOptions deberta_v2_load_options(const std::vector<std::string>& head_prefixes) {
  std::vector<std::string> missing_ok;
  for (const auto& prefix : head_prefixes) missing_ok.push_back(head_pattern(prefix));
  return StateDictLoadOptions()
      .base_prefix("deberta.")
      .ignore({R"((.+\.)?embeddings\.position_ids)"})
      .allow_unexpected({R"(cls\..*)", R"(lm_predictions\..*)", R"(mask_predictions\..*)", R"(pooler\..*)", R"(classifier\..*)",
                         R"(qa_outputs\..*)"})
      .allow_missing(missing_ok);
}

Pretrained<DebertaV2ForSequenceClassification> load_deberta_v2_for_sequence_classification(
    const std::string& dir, std::optional<int64_t> num_labels) {
  auto options = load_deberta_v2_config(config_file(dir));
  const bool new_labels = num_labels && *num_labels != options.num_labels();
  if (new_labels) options.num_labels(*num_labels).label_names({});
  DebertaV2ForSequenceClassification model(options);
  auto load_options = deberta_v2_load_options(model->head_prefixes());
  // A classifier for another label count keeps its fresh initialisation; the pooler still loads.
  const auto fresh = new_labels ? names_under(*model, "classifier.") : std::vector<std::string>{};
  load_options.exclude(fresh);
  auto report = load_state_dict(*model, open_weights(dir), load_options);
  report.add_missing(fresh);
  return {model, std::move(report)};
}

Pretrained<DebertaV2ForQuestionAnswering> load_deberta_v2_for_question_answering(const std::string& dir) {
  DebertaV2ForQuestionAnswering model(load_deberta_v2_config(config_file(dir)));
  auto report = load_state_dict(*model, open_weights(dir), deberta_v2_load_options(model->head_prefixes()));
  return {model, std::move(report)};
}

Pretrained<DebertaV2ForMaskedLM> load_deberta_v2_for_masked_lm(const std::string& dir) {
  DebertaV2ForMaskedLM model(load_deberta_v2_config(config_file(dir)));
  const auto options = StateDictLoadOptions()
                           .base_prefix("deberta.")
                           .ignore({R"((.+\.)?embeddings\.position_ids)", R"(cls\.predictions\.decoder\.(weight|bias))"})
                           .allow_unexpected({R"(pooler\..*)", R"(classifier\..*)", R"(qa_outputs\..*)"});
  auto report = load_state_dict(*model, open_weights(dir), options);
  return {model, std::move(report)};
}

Pretrained<DebertaV2Model> load_deberta_v2_model(const std::string& dir) {
  DebertaV2Model model(load_deberta_v2_config(config_file(dir)));
  auto report = load_state_dict(*model, open_weights(dir), deberta_v2_load_options({}));
  return {model, std::move(report)};
}

void save_pretrained(DebertaV2ForSequenceClassificationImpl& model, const std::string& dir, bool include_tuners) {
  save_model_directory(model, deberta_v2_config_json(model.options, "DebertaV2ForSequenceClassification"), dir,
                       include_tuners);
}

void save_pretrained(DebertaV2ForMaskedLMImpl& model, const std::string& dir, bool include_tuners) {
  save_model_directory(model, deberta_v2_config_json(model.options, "DebertaV2ForMaskedLM"), dir, include_tuners);
}

void save_pretrained(DebertaV2ModelImpl& model, const std::string& dir, bool include_tuners) {
  save_model_directory(model, deberta_v2_config_json(model.options, "DebertaV2Model"), dir, include_tuners);
}

}  // namespace capaboost
