#include "models/roberta_pretrained.h"

#include <filesystem>

#include "checkpoint/config_json.h"
#include "checkpoint/safetensors.h"

namespace capaboost {

Pretrained<RobertaForSequenceClassification> load_roberta_for_sequence_classification(
    const std::string& dir, std::optional<int64_t> num_labels) {
  auto options = load_roberta_config(config_file(dir));
  const bool new_labels = num_labels && *num_labels != options.num_labels();
  if (new_labels) options.num_labels(*num_labels).label_names({});
  RobertaForSequenceClassification model(options);
  SafetensorsFile weights = open_weights(dir);
  auto load_options = bert_family_load_options(BertFamily::kRoberta, /*head_missing_ok=*/true);
  // For another label count the output layer keeps its fresh initialisation and the dense layer loads,
  // as transformers' ignore_mismatched_sizes does.
  const auto fresh = new_labels ? names_under(*model, "classifier.out_proj.") : std::vector<std::string>{};
  load_options.exclude(fresh);
  auto report = load_state_dict(*model, weights, load_options);
  report.add_missing(fresh);
  return {model, std::move(report)};
}

Pretrained<RobertaForMaskedLM> load_roberta_for_masked_lm(const std::string& dir) {
  RobertaForMaskedLM model(load_roberta_config(config_file(dir)));
  SafetensorsFile weights = open_weights(dir);
  auto options = StateDictLoadOptions()
                     .base_prefix("roberta.")
                     .ignore({R"((.+\.)?embeddings\.(position_ids|token_type_ids))",
                              R"(lm_head\.decoder\.(weight|bias))"})
                     .allow_unexpected({R"((roberta\.)?pooler\..*)"});
  auto report = load_state_dict(*model, weights, options);
  return {model, std::move(report)};
}

void save_pretrained(RobertaForSequenceClassificationImpl& model, const std::string& dir,
                     bool include_tuners) {
  save_model_directory(model, bert_config_json(model.options, "RobertaForSequenceClassification"), dir,
                 include_tuners);
}

void save_pretrained(RobertaForMaskedLMImpl& model, const std::string& dir, bool include_tuners) {
  save_model_directory(model, bert_config_json(model.options, "RobertaForMaskedLM"), dir, include_tuners);
}

}  // namespace capaboost
