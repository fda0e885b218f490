#include "models/bert_pretrained.h"

#include "checkpoint/config_json.h"

namespace capaboost {
namespace {

// "Bert" or "Roberta": transformers' class-name prefix of the family.
std::string architecture_prefix(BertFamily family) { return family == BertFamily::kBert ? "Bert" : "Roberta"; }

}  // namespace

StateDictLoadOptions bert_family_load_options(BertFamily family, bool head_missing_ok) {
  const std::string base = to_string(family);
  const std::string pretraining_head = family == BertFamily::kBert ? R"(cls\..*)" : R"(lm_head\..*)";
  auto options = StateDictLoadOptions()
                     .base_prefix(base + ".")
                     .ignore({R"((.+\.)?embeddings\.(position_ids|token_type_ids))"})
                     .allow_unexpected({pretraining_head, "(" + base + R"(\.)?pooler\..*)", R"(classifier\..*)",
                                        R"(qa_outputs\..*)"});
  if (head_missing_ok) options.allow_missing({R"(classifier\..*)", R"(qa_outputs\..*)"});
  return options;
}

BertOptions load_bert_family_config_of(const std::string& dir) {
  const auto path = config_file(dir);
  const auto config = ConfigJson::load(path);
  const auto model_type = config.has("model_type") ? config.required<std::string>("model_type") : "roberta";
  TORCH_CHECK(model_type == "bert" || model_type == "roberta", path, ": field 'model_type' is '", model_type,
              "'; a BERT-family loader reads model_type \"bert\" or \"roberta\"");
  return load_bert_family_config(path, model_type == "bert" ? BertFamily::kBert : BertFamily::kRoberta);
}

Pretrained<BertForSequenceClassification> load_bert_for_sequence_classification(const std::string& dir,
                                                                                 std::optional<int64_t> num_labels) {
  auto options = load_bert_config(config_file(dir));
  const bool new_labels = num_labels && *num_labels != options.num_labels();
  if (new_labels) options.num_labels(*num_labels).label_names({});
  BertForSequenceClassification model(options);
  SafetensorsFile weights = open_weights(dir);
  auto load_options = bert_family_load_options(BertFamily::kBert, /*head_missing_ok=*/true);
  load_options.allow_missing({R"(classifier\..*)", R"(bert\.pooler\..*)"});
  // For another label count the classifier keeps its fresh initialisation, as transformers'
  // ignore_mismatched_sizes leaves it.
  const auto fresh = new_labels ? names_under(*model, "classifier.") : std::vector<std::string>{};
  load_options.exclude(fresh);
  auto report = load_state_dict(*model, weights, load_options);
  report.add_missing(fresh);
  return {model, std::move(report)};
}

Pretrained<BertForQuestionAnswering> load_bert_family_for_question_answering(const std::string& dir) {
  BertForQuestionAnswering model(load_bert_family_config_of(dir));
  SafetensorsFile weights = open_weights(dir);
  auto report = load_state_dict(*model, weights, bert_family_load_options(model->options.family(), /*head_missing_ok=*/true));
  return {model, std::move(report)};
}

Pretrained<BertForMaskedLM> load_bert_for_masked_lm(const std::string& dir) {
  BertForMaskedLM model(load_bert_config(config_file(dir)));
  SafetensorsFile weights = open_weights(dir);
  auto options = StateDictLoadOptions()
                     .base_prefix("bert.")
                     .ignore({R"((.+\.)?embeddings\.(position_ids|token_type_ids))",
                              R"(cls\.predictions\.decoder\.(weight|bias))"})
                     .allow_unexpected({R"((bert\.)?pooler\..*)", R"(cls\.seq_relationship\..*)"});
  auto report = load_state_dict(*model, weights, options);
  return {model, std::move(report)};
}

Pretrained<BertModel> load_bert_family_model(const std::string& dir, bool add_pooling_layer) {
  BertModel model(load_bert_family_config_of(dir), add_pooling_layer);
  SafetensorsFile weights = open_weights(dir);
  auto options = bert_family_load_options(model->options.family(), /*head_missing_ok=*/false);
  // A checkpoint saved without a pooler (e.g. by a classifier) leaves a requested pooler fresh.
  if (add_pooling_layer) options.allow_missing({R"(pooler\..*)"});
  auto report = load_state_dict(*model, weights, options);
  return {model, std::move(report)};
}

void save_pretrained(BertForSequenceClassificationImpl& model, const std::string& dir, bool include_tuners) {
  save_model_directory(model, bert_config_json(model.options, "BertForSequenceClassification"), dir, include_tuners);
}

void save_pretrained(BertForQuestionAnsweringImpl& model, const std::string& dir, bool include_tuners) {
  save_model_directory(model,
                       bert_config_json(model.options, architecture_prefix(model.options.family()) + "ForQuestionAnswering"),
                       dir, include_tuners);
}

void save_pretrained(BertModelImpl& model, const std::string& dir, bool include_tuners) {
  save_model_directory(model, bert_config_json(model.options, architecture_prefix(model.options.family()) + "Model"), dir,
                       include_tuners);
}

void save_pretrained(BertForMaskedLMImpl& model, const std::string& dir, bool include_tuners) {
  save_model_directory(model, bert_config_json(model.options, "BertForMaskedLM"), dir, include_tuners);
}

}  // namespace capaboost
