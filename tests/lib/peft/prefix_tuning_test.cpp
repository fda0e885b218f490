#include "peft/prefix_tuning.h"

#include <catch2/catch.hpp>

#include "lib/peft/few_step_training.h"
#include "lib/train/tiny_classifier.h"
#include "measure/parameter_count.h"
#include "peft/method_registry.h"
#include "sites/site_registry.h"
#include "train/trainable_selection.h"

using namespace capaboost;

namespace {

// The registered `prefix` method on the tiny two-head classifier (width 8; one layer unless asked).
RobertaForSequenceClassification prefixed_classifier(const nlohmann::json& config, int64_t layers = 1) {
  torch::manual_seed(21);
  auto model = testing::tiny_deterministic_classifier(layers);
  const MethodSpec& method = find_method("prefix");
  method.attach(*model, resolve_or_throw(method.parameters, config, "method prefix"));
  select_trainable_parameters(*model, method.trains_backbone_parameter, model->head_prefixes());
  return model;
}

std::vector<std::shared_ptr<PrefixTuningImpl>> prefixes(torch::nn::Module& model) {
  std::vector<std::shared_ptr<PrefixTuningImpl>> found;
  for (const auto& [name, tuner] : find_tuners(model)) found.push_back(std::dynamic_pointer_cast<PrefixTuningImpl>(tuner));
  return found;
}

}  // namespace

TEST_CASE("a prefix is its layer's slice of the shared MLP, split into heads like the keys", "[prefix]") {
  auto model = prefixed_classifier({{"prefix_length", 3}, {"prefix_mlp_hidden", 5}}, /*layers=*/2);
  const auto tuners = prefixes(*model);
  REQUIRE(tuners.size() == 2);
  // One MLP for both layers, registered (and so trained and counted) once.
  const int64_t mlp = 3 * 8 + (8 * 5 + 5) + (5 * 2 * 2 * 8 + 2 * 2 * 8);
  const auto report = count_parameters(*model, model->head_prefixes());
  CHECK(report.tuner_dense == 2 * 2 * 3 * 8);  // the merged budget: 2 layers × (keys + values) × l × C
  CHECK(report.trainable - report.head == mlp);

  // Layer 1's prefix by hand: tanh(E W₁ᵀ + b₁) W₂ᵀ + b₂, its rows 32..63 of the up-projection.
  torch::NoGradGuard no_grad;
  auto& owner = *tuners[0];
  const auto encoder = owner.named_children()["encoder"]->as<PrefixEncoderImpl>();
  REQUIRE(encoder != nullptr);
  const auto hidden = torch::tanh(torch::mm(encoder->embedding, encoder->down->weight.t()) + encoder->down->bias);
  const auto all = torch::mm(hidden, encoder->up->weight.t()) + encoder->up->bias;  // (3, 2 layers · 2 · 8)
  const auto [keys, values] = tuners[1]->prefix();
  CHECK(torch::allclose(keys, all.narrow(1, 16, 8), 1e-6, 1e-6));
  CHECK(torch::allclose(values, all.narrow(1, 24, 8), 1e-6, 1e-6));

  // extend(): (B, H, T, d) → (B, H, 3 + T, d); head h of the prefix is columns h·d … h·d + d − 1.
  KeyValues state{torch::randn({2, 2, 4, 4}), torch::randn({2, 2, 4, 4}), torch::zeros({2, 1, 1, 4})};
  state.mask[1][0][0][3] = -1e9;
  const auto tuned = tuners[1]->extend(state);
  REQUIRE(tuned.keys.sizes() == torch::IntArrayRef({2, 2, 7, 4}));
  for (int64_t h = 0; h < 2; ++h) {
    CHECK(torch::equal(tuned.keys[1][h].narrow(0, 0, 3), keys.narrow(1, h * 4, 4)));
    CHECK(torch::equal(tuned.values[0][h].narrow(0, 0, 3), values.narrow(1, h * 4, 4)));
  }
  CHECK(torch::equal(tuned.keys.narrow(2, 3, 4), state.keys));
  // The mask gains three attended (zero) positions in front and keeps its own.
  REQUIRE(tuned.mask.sizes() == torch::IntArrayRef({2, 1, 1, 7}));
  CHECK(tuned.mask.narrow(-1, 0, 3).abs().sum().item<float>() == 0.0f);
  CHECK(torch::equal(tuned.mask.narrow(-1, 3, 4), state.mask));
  // No mask stays no mask: every position, prefix included, is attended.
  CHECK_FALSE(tuners[0]->extend({state.keys, state.values, torch::Tensor()}).mask.defined());
}

TEST_CASE("merging prefixes drops the MLP and keeps every output", "[prefix][merge]") {
  auto model = prefixed_classifier({{"prefix_length", 4}, {"prefix_mlp_hidden", 6}}, /*layers=*/2);
  model->eval();
  const auto ids = torch::randint(3, 30, {3, 6});
  auto mask = torch::ones({3, 6}, torch::kLong);
  mask[2][5] = 0;
  torch::Tensor before;
  {
    torch::NoGradGuard no_grad;
    before = model->forward(ids, mask).logits;
  }
  CHECK(merge_prefixes(*model) == 2);
  CHECK(merge_prefixes(*model) == 0);  // nothing left to merge
  for (const auto& tuner : prefixes(*model)) {
    CHECK_FALSE(tuner->reparameterized());
    CHECK(tuner->named_children().is_empty());
  }
  torch::NoGradGuard no_grad;
  CHECK(torch::allclose(model->forward(ids, mask).logits, before, 1e-5, 1e-6));
  // What remains of the tuners is exactly the budget they report.
  const auto report = count_parameters(*model, model->head_prefixes());
  int64_t stored = 0;
  for (const auto& tuner : prefixes(*model)) {
    CHECK(tuner->parameters().size() == 2);  // keys and values
    stored += tuner->keys.numel() + tuner->values.numel();
  }
  CHECK(stored == report.tuner_dense);
}

TEST_CASE("training a prefix lowers the loss and changes only the prefix and the head", "[prefix][train]") {
  for (const int64_t mlp_hidden : {0, 6}) {
    INFO("prefix_mlp_hidden " << mlp_hidden);
    auto model = prefixed_classifier({{"prefix_length", 2}, {"prefix_mlp_hidden", mlp_hidden}});
    const auto trained = testing::train_few_steps(model);
    CHECK(trained.last_loss < trained.first_loss - 0.05);
    for (const auto& item : model->named_parameters()) {
      INFO(item.key());
      const bool intended = item.key().find(".prefix.") != std::string::npos || item.key().rfind("classifier.", 0) == 0;
      CHECK(trained.changed.count(item.key()) == (intended ? 1u : 0u));
    }
  }
}

TEST_CASE("prefix options are checked, naming the site or the rule", "[prefix]") {
  CHECK_THROWS_WITH(PrefixTuning(0, 2, 4), Catch::Contains("length must be positive"));
  PrefixTuning plain(3, 2, 4);
  CHECK_THROWS_WITH(plain->set_plain(torch::zeros({3, 4}), torch::zeros({3, 4})), Catch::Contains("(3, 8)"));
  PrefixEncoder encoder(3, 8, 5, 2);
  CHECK_THROWS_WITH(PrefixTuning(encoder, 2, false, 2, 4), Catch::Contains("serves 2 layers"));
  CHECK_THROWS_WITH(PrefixTuning(encoder, 0, true, 2, 8), Catch::Contains("width 8"));
}
