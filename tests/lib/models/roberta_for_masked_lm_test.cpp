#include "models/roberta_for_masked_lm.h"

#include <torch/torch.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <set>

#include "checkpoint/safetensors.h"
#include "models/roberta_pretrained.h"
#include "support/temp_dir.h"

using namespace capaboost;
using capaboost::testing::TempDir;

namespace {

BertOptions tiny_roberta_mlm() {
  return roberta_options()
      .vocab_size(11)
      .hidden_size(8)
      .num_hidden_layers(2)
      .num_attention_heads(2)
      .intermediate_size(12)
      .max_position_embeddings(16);
}

RobertaForMaskedLM tiny_roberta_model(uint64_t seed = 0) {
  torch::manual_seed(seed);
  RobertaForMaskedLM model(tiny_roberta_mlm());
  // Non-zero head bias and LayerNorm parameters, so a wrong or missing one shows in the outputs.
  torch::NoGradGuard no_grad;
  model->lm_head->bias.normal_(0.0, 0.5);
  model->lm_head->layer_norm->weight.normal_(1.0, 0.2);
  model->eval();
  return model;
}

torch::Tensor roberta_sample_ids() { return torch::tensor({{0, 5, 6, 4, 7, 2}, {0, 9, 4, 8, 2, 1}}, torch::kLong); }
torch::Tensor roberta_sample_labels() {
  return torch::tensor({{-100, -100, -100, 10, -100, -100}, {-100, 3, 6, -100, -100, -100}}, torch::kLong);
}

}  // namespace

TEST_CASE("RobertaForMaskedLM ties the decoder to the word embeddings", "[roberta][mlm]") {
  auto model = tiny_roberta_model();
  const auto& embeddings = model->roberta->embeddings->word_embeddings->weight;
  CHECK(model->lm_head->decoder_weight().data_ptr() == embeddings.data_ptr());

  // One parameter tensor, listed once: the optimizer updates it once per step.
  std::set<void*> storages;
  int64_t listed = 0;
  for (const auto& p : model->parameters()) {
    storages.insert(p.data_ptr());
    ++listed;
  }
  CHECK(static_cast<int64_t>(storages.size()) == listed);
  const auto names = model->named_parameters().keys();
  CHECK(std::count(names.begin(), names.end(), "lm_head.bias") == 1);
  CHECK(std::none_of(names.begin(), names.end(),
                     [](const std::string& n) { return n.rfind("lm_head.decoder", 0) == 0; }));

  // Changing the embedding row of a target changes that target's logit through the decoder.
  const auto before = model->full_logits(roberta_sample_ids()).detach().clone();
  {
    torch::NoGradGuard no_grad;
    model->roberta->embeddings->word_embeddings->weight[10].add_(1.0);
  }
  const auto after = model->full_logits(roberta_sample_ids()).detach();
  CHECK_FALSE(torch::allclose(before.select(-1, 10), after.select(-1, 10)));

  // Gradients from the decoder and from the input embedding accumulate in the same tensor.
  model->train();
  model->zero_grad();
  model->forward(roberta_sample_ids(), roberta_sample_labels()).loss.backward();
  const auto grad = model->roberta->embeddings->word_embeddings->weight.grad();
  REQUIRE(grad.defined());
  CHECK(grad[10].abs().sum().item<double>() > 0.0);  // 10 is never an input: only the decoder reaches it
}

TEST_CASE("RobertaForMaskedLM gathered logits equal the full logits at the target positions",
          "[roberta][mlm]") {
  auto model = tiny_roberta_model(1);
  torch::NoGradGuard no_grad;
  const auto out = model->forward(roberta_sample_ids(), roberta_sample_labels());
  const auto full = model->full_logits(roberta_sample_ids());  // (B, T, V)
  REQUIRE(out.logits.sizes() == torch::IntArrayRef({3, 11}));
  CHECK(torch::equal(out.labels, torch::tensor({10, 3, 6}, torch::kLong)));
  const auto expected = torch::stack({full[0][3], full[1][1], full[1][2]});
  CHECK(torch::allclose(out.logits, expected, 1e-6, 1e-6));
  // And the loss is transformers' (full logits, ignore_index -100).
  CHECK(out.loss.item<double>() ==
        Approx(masked_lm_loss(full, roberta_sample_labels()).item<double>()).epsilon(1e-6));
}

TEST_CASE("RobertaForMaskedLM loss equals a hand-computed cross-entropy", "[roberta][mlm]") {
  auto model = tiny_roberta_model(2);
  torch::NoGradGuard no_grad;
  const auto out = model->forward(roberta_sample_ids(), roberta_sample_labels());
  const auto logits = out.logits.to(torch::kDouble);
  const auto labels = out.labels;
  double total = 0.0;
  for (int64_t i = 0; i < logits.size(0); ++i) {
    double sum_exp = 0.0;
    for (int64_t v = 0; v < logits.size(1); ++v) sum_exp += std::exp(logits[i][v].item<double>());
    total += std::log(sum_exp) - logits[i][labels[i].item<int64_t>()].item<double>();
  }
  CHECK(out.loss.item<double>() == Approx(total / 3.0).epsilon(1e-6));
  CHECK_THROWS_WITH(model->forward(roberta_sample_ids(), torch::full({2, 6}, kIgnoreLabel, torch::kLong)),
                    Catch::Contains("no position has an MLM target"));
}

TEST_CASE("RobertaForMaskedLM saves the Hugging Face names and reloads bit-identically", "[roberta][mlm]") {
  TempDir dir;
  auto model = tiny_roberta_model(3);
  save_pretrained(*model, dir.path().string());
  const SafetensorsFile weights(dir.file("model.safetensors"));
  CHECK(weights.contains("roberta.embeddings.word_embeddings.weight"));
  CHECK(weights.contains("lm_head.dense.weight"));
  CHECK(weights.contains("lm_head.layer_norm.bias"));
  CHECK(weights.contains("lm_head.bias"));
  CHECK_FALSE(weights.contains("lm_head.decoder.weight"));  // tied: transformers leaves both out
  CHECK_FALSE(weights.contains("lm_head.decoder.bias"));
  CHECK_FALSE(weights.contains("roberta.pooler.dense.weight"));
  CHECK(nlohmann::json::parse(std::ifstream(dir.file("config.json")))["architectures"][0] ==
        "RobertaForMaskedLM");

  auto [loaded, report] = load_roberta_for_masked_lm(dir.path().string());
  CHECK(report.missing.empty());
  CHECK(report.unexpected.empty());
  loaded->eval();
  for (const auto& [name, tensor] : weights.tensors()) {
    INFO(name);
    CHECK(torch::equal(loaded->named_parameters()[name], tensor));
  }
  CHECK(loaded->lm_head->decoder_weight().data_ptr() ==
        loaded->roberta->embeddings->word_embeddings->weight.data_ptr());
  torch::NoGradGuard no_grad;
  CHECK(torch::equal(model->full_logits(roberta_sample_ids()), loaded->full_logits(roberta_sample_ids())));
}

TEST_CASE("An MLM checkpoint loads into the sequence classifier with the same encoder", "[roberta][mlm]") {
  TempDir dir;
  auto model = tiny_roberta_model(4);
  save_pretrained(*model, dir.path().string());
  auto [classifier, report] = load_roberta_for_sequence_classification(dir.path().string(), 3);
  CHECK(classifier->options.num_labels() == 3);
  CHECK(std::count_if(report.unexpected.begin(), report.unexpected.end(),
                      [](const std::string& n) { return n.rfind("lm_head.", 0) == 0; }) == 5);
  CHECK(std::all_of(report.missing.begin(), report.missing.end(),
                    [](const std::string& n) { return n.rfind("classifier.", 0) == 0; }));
  classifier->eval();
  torch::NoGradGuard no_grad;
  const auto ids = roberta_sample_ids();
  CHECK(torch::equal(model->roberta->forward(ids, ids.ne(1)).last_hidden_state,
                     classifier->roberta->forward(ids, ids.ne(1)).last_hidden_state));
}
