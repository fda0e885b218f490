#include "train/trainable_selection.h"

#include <catch2/catch.hpp>

#include "lib/train/tiny_classifier.h"
#include "models/roberta.h"
#include "peft/lora.h"
#include "peft/method_registry.h"
#include "sites/site_registry.h"

using namespace capaboost;
using Catch::Contains;

namespace {

std::vector<std::string> trainable_names(torch::nn::Module& model) {
  std::vector<std::string> names;
  for (const auto& item : model.named_parameters()) {
    if (item.value().requires_grad()) names.push_back(item.key());
  }
  return names;
}

}  // namespace

TEST_CASE("BitFit trains every bias and the head only", "[train][trainable_selection]") {
  auto model = testing::tiny_classifier();
  select_trainable_parameters(*model, find_method("bitfit").trains_backbone_parameter, {"classifier."});
  for (const auto& name : trainable_names(*model)) {
    const bool bias = name.size() >= 4 && name.compare(name.size() - 4, 4, "bias") == 0;
    CHECK((bias || name.rfind("classifier.", 0) == 0));
  }
  const auto names = trainable_names(*model);
  CHECK(std::count(names.begin(), names.end(), "roberta.encoder.layer.0.attention.self.query.bias") == 1);
  CHECK(std::count(names.begin(), names.end(), "roberta.embeddings.LayerNorm.bias") == 1);
  CHECK(std::count(names.begin(), names.end(), "classifier.dense.weight") == 1);
  CHECK(std::count(names.begin(), names.end(), "roberta.encoder.layer.0.attention.self.query.weight") == 0);
}

TEST_CASE("full fine-tuning trains everything and PEFT only tuners and head", "[train][trainable_selection]") {
  auto model = testing::tiny_classifier();
  const int64_t all = select_trainable_parameters(*model, find_method("full").trains_backbone_parameter, {"classifier."});
  int64_t total = 0;
  for (const auto& parameter : model->parameters()) total += parameter.numel();
  CHECK(all == total);

  attach_tuners(*model, SiteSelector{{"query", "value"}}, [](const std::string& site, const TunableLinearImpl& layer) -> SiteTunerPtr {
    return std::make_shared<LoraImpl>(LoraOptions(2), site, layer.options.in_features(), layer.options.out_features());
  });
  const int64_t peft = select_trainable_parameters(*model, find_method("lora").trains_backbone_parameter, {"classifier."});
  int64_t expected = 0;
  for (const auto& item : model->named_parameters()) {
    if (item.key().find(".lora.") != std::string::npos || item.key().rfind("classifier.", 0) == 0) expected += item.value().numel();
  }
  CHECK(peft == expected);
  CHECK(peft < all);
}

TEST_CASE("a selection that trains nothing is refused", "[train][trainable_selection]") {
  auto model = testing::tiny_classifier();
  CHECK_THROWS_WITH(select_trainable_parameters(*model, nullptr, {"no_such_head."}),
                    Contains("nothing trains"));
}
