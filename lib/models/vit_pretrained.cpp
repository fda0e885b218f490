#include "models/vit_pretrained.h"

#include "models/vit_config.h"

namespace capaboost {

StateDictLoadOptions vit_load_options(bool head_missing_ok) {
  auto options = StateDictLoadOptions().base_prefix("vit.").allow_unexpected(
      {R"((vit\.)?pooler\..*)", R"(classifier\..*)", R"((vit\.)?embeddings\.mask_token)", R"(decoder\..*)"});
  if (head_missing_ok) options.allow_missing({R"(classifier\..*)"});
  return options;
}

Pretrained<VitForImageClassification> load_vit_for_image_classification(const std::string& dir,
                                                                         std::optional<int64_t> num_labels) {
  auto options = load_vit_config(config_file(dir));
  const bool new_labels = num_labels && *num_labels != options.num_labels();
  if (new_labels) options.num_labels(*num_labels).label_names({});
  VitForImageClassification model(options);
  SafetensorsFile weights = open_weights(dir);
  auto load_options = vit_load_options(/*head_missing_ok=*/true);
  // For another label count the classifier keeps its fresh initialisation, as transformers'
  // ignore_mismatched_sizes leaves it.
  const auto fresh = new_labels ? names_under(*model, "classifier.") : std::vector<std::string>{};
  load_options.exclude(fresh);
  auto report = load_state_dict(*model, weights, load_options);
  report.add_missing(fresh);
  return {model, std::move(report)};
}

void save_pretrained(VitForImageClassificationImpl& model, const std::string& dir, bool include_tuners) {
  save_model_directory(model, vit_config_json(model.options, "ViTForImageClassification"), dir, include_tuners);
}

}  // namespace capaboost
