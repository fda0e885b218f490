#include "models/llama_pretrained.h"

#include "models/llama_config.h"

namespace capaboost {

StateDictLoadOptions llama_load_options(bool head_missing_ok) {
  auto options = StateDictLoadOptions()
                     .base_prefix("model.")
                     .ignore({R"((model\.)?layers\.\d+\.self_attn\.rotary_emb\.inv_freq)"})
                     .allow_unexpected({R"(lm_head\..*)", R"(score\..*)"});
  if (head_missing_ok) options.allow_missing({R"(score\..*)"});
  return options;
}

Pretrained<LlamaForCausalLM> load_llama_for_causal_lm(const std::string& dir) {
  LlamaForCausalLM model(load_llama_config(config_file(dir)));
  SafetensorsFile weights = open_weights(dir);
  auto options = llama_load_options(/*head_missing_ok=*/false);
  // Untied, the model registers lm_head and a file without it fails as missing; tied, there is no
  // lm_head to fill and a saved copy of the embedding is listed as unexpected.
  auto report = load_state_dict(*model, weights, options);
  return {model, std::move(report)};
}

Pretrained<LlamaForSequenceClassification> load_llama_for_sequence_classification(const std::string& dir,
                                                                                   std::optional<int64_t> num_labels) {
  auto options = load_llama_config(config_file(dir));
  const bool new_labels = num_labels && *num_labels != options.num_labels();
  if (new_labels) options.num_labels(*num_labels).label_names({});
  LlamaForSequenceClassification model(options);
  SafetensorsFile weights = open_weights(dir);
  auto load_options = llama_load_options(/*head_missing_ok=*/true);
  // For another label count the head keeps its fresh initialisation, as transformers'
  // ignore_mismatched_sizes leaves it.
  const auto fresh = new_labels ? names_under(*model, "score.") : std::vector<std::string>{};
  load_options.exclude(fresh);
  auto report = load_state_dict(*model, weights, load_options);
  report.add_missing(fresh);
  return {model, std::move(report)};
}

void save_pretrained(LlamaForCausalLMImpl& model, const std::string& dir, bool include_tuners) {
  save_model_directory(model, llama_config_json(model.options, "LlamaForCausalLM"), dir, include_tuners);
}

void save_pretrained(LlamaForSequenceClassificationImpl& model, const std::string& dir, bool include_tuners) {
  save_model_directory(model, llama_config_json(model.options, "LlamaForSequenceClassification"), dir,
                       include_tuners);
}

}  // namespace capaboost
