#include "models/deberta_v2_for_masked_lm.h"

#include <torch/torch.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <set>

#include "checkpoint/safetensors.h"
#include "models/deberta_v2_pretrained.h"
#include "support/temp_dir.h"

using namespace capaboost;
using capaboost::testing::TempDir;

namespace {

DebertaV2Options tiny_deberta_mlm() {
  return DebertaV2Options()
      .vocab_size(11)
      .hidden_size(8)
      .num_hidden_layers(2)
      .num_attention_heads(2)
      .intermediate_size(12)
      .max_position_embeddings(16)
      .position_buckets(4);
}

DebertaV2ForMaskedLM tiny_deberta_model(const DebertaV2Options& options, uint64_t seed = 0) {
  torch::manual_seed(seed);
  DebertaV2ForMaskedLM model(options);
  // Non-zero head bias and LayerNorm parameters, so a wrong or missing one shows in the outputs.
  torch::NoGradGuard no_grad;
  model->predictions->bias.normal_(0.0, 0.5);
  model->predictions->transform->layer_norm->weight.normal_(1.0, 0.2);
  model->predictions->transform->layer_norm->bias.normal_(0.0, 0.2);
  model->eval();
  return model;
}

torch::Tensor deberta_sample_ids() { return torch::tensor({{1, 5, 6, 4, 7, 2}, {1, 9, 4, 8, 2, 0}}, torch::kLong); }
torch::Tensor deberta_sample_labels() {
  return torch::tensor({{-100, -100, -100, 10, -100, -100}, {-100, 3, 6, -100, -100, -100}}, torch::kLong);
}

}  // namespace

TEST_CASE("DebertaV2ForMaskedLM ties the decoder to the word embeddings", "[deberta][mlm]") {
  auto model = tiny_deberta_model(tiny_deberta_mlm());
  const auto& embeddings = model->deberta->embeddings->word_embeddings->weight;
  CHECK(model->predictions->decoder_weight().data_ptr() == embeddings.data_ptr());
  CHECK(model->word_embeddings()->weight.data_ptr() == embeddings.data_ptr());

  std::set<void*> storages;
  int64_t listed = 0;
  for (const auto& p : model->parameters()) {
    storages.insert(p.data_ptr());
    ++listed;
  }
  CHECK(static_cast<int64_t>(storages.size()) == listed);  // the tied matrix is listed once
  const auto names = model->named_parameters().keys();
  for (const char* name : {"cls.predictions.bias", "cls.predictions.transform.dense.weight",
                           "cls.predictions.transform.LayerNorm.weight", "deberta.embeddings.word_embeddings.weight"}) {
    INFO(name);
    CHECK(std::count(names.begin(), names.end(), name) == 1);
  }
  CHECK(std::none_of(names.begin(), names.end(),
                     [](const std::string& n) { return n.rfind("cls.predictions.decoder", 0) == 0; }));

  // Gradients from the decoder and from the input embedding accumulate in the same tensor.
  model->train();
  model->zero_grad();
  model->forward(deberta_sample_ids(), deberta_sample_labels()).loss.backward();
  const auto grad = model->deberta->embeddings->word_embeddings->weight.grad();
  REQUIRE(grad.defined());
  CHECK(grad[10].abs().sum().item<double>() > 0.0);  // 10 is never an input: only the decoder reaches it
}

TEST_CASE("DebertaV2ForMaskedLM's head is transformers' transform and tied decoder, by hand", "[deberta][mlm]") {
  // The transform uses config.hidden_act (RoBERTa's head always uses GELU), and maps to the embedding
  // width when it differs from the hidden size (the decoder is then (V, E)).
  for (const auto& [activation, embedding_size] :
       {std::pair<Activation, std::optional<int64_t>>{Activation::kGelu, std::nullopt}, {Activation::kRelu, 6}}) {
    INFO(to_string(activation));
    auto model = tiny_deberta_model(tiny_deberta_mlm().hidden_act(activation).embedding_size(embedding_size), 1);
    torch::NoGradGuard no_grad;
    const auto hidden = model->deberta->forward(deberta_sample_ids()).last_hidden_state.to(torch::kDouble);  // (B, T, C)
    const auto& transform = *model->predictions->transform;
    const auto w = transform.dense->weight.to(torch::kDouble), b = transform.dense->bias.to(torch::kDouble);
    auto x = torch::matmul(hidden, w.t()) + b;                                          // (B, T, E)
    x = activation == Activation::kRelu ? x.clamp_min(0.0) : 0.5 * x * (1.0 + torch::erf(x / std::sqrt(2.0)));
    const auto mean = x.mean(-1, true), var = (x - mean).pow(2).mean(-1, true);
    x = (x - mean) / torch::sqrt(var + tiny_deberta_mlm().layer_norm_eps()) *
            transform.layer_norm->weight.to(torch::kDouble) +
        transform.layer_norm->bias.to(torch::kDouble);
    const auto expected = torch::matmul(x, model->word_embeddings()->weight.to(torch::kDouble).t()) +
                          model->predictions->bias.to(torch::kDouble);  // (B, T, V)
    const auto logits = model->full_logits(deberta_sample_ids());
    CHECK(logits.sizes() == torch::IntArrayRef({2, 6, 11}));
    CHECK(torch::allclose(logits.to(torch::kDouble), expected, 1e-5, 1e-5));
  }
}

TEST_CASE("DebertaV2ForMaskedLM gathered logits equal the full logits at the target positions", "[deberta][mlm]") {
  auto model = tiny_deberta_model(tiny_deberta_mlm(), 2);
  torch::NoGradGuard no_grad;
  const auto mask = (deberta_sample_ids() != 0).to(torch::kLong);
  const auto out = model->forward(deberta_sample_ids(), deberta_sample_labels(), mask);
  const auto full = model->full_logits(deberta_sample_ids(), mask);  // (B, T, V)
  REQUIRE(out.logits.sizes() == torch::IntArrayRef({3, 11}));
  CHECK(torch::equal(out.labels, torch::tensor({10, 3, 6}, torch::kLong)));
  CHECK(torch::allclose(out.logits, torch::stack({full[0][3], full[1][1], full[1][2]}), 1e-6, 1e-6));
  CHECK(out.loss.item<double>() == Approx(masked_lm_loss(full, deberta_sample_labels()).item<double>()).epsilon(1e-6));
  CHECK_THROWS_WITH(model->forward(deberta_sample_ids(), torch::full({2, 6}, kIgnoreLabel, torch::kLong)),
                    Catch::Contains("DebertaV2ForMaskedLM: no position has an MLM target"));
  CHECK(model->max_length() == 16);
}

TEST_CASE("DebertaV2ForMaskedLM saves the Hugging Face names and reloads bit-identically", "[deberta][mlm]") {
  TempDir dir;
  auto model = tiny_deberta_model(tiny_deberta_mlm(), 3);
  model->save_pretrained_directory(dir.path().string());
  const SafetensorsFile weights(dir.file("model.safetensors"));
  for (const char* name : {"deberta.embeddings.word_embeddings.weight", "deberta.encoder.rel_embeddings.weight",
                           "cls.predictions.transform.dense.weight", "cls.predictions.transform.LayerNorm.bias",
                           "cls.predictions.bias"}) {
    INFO(name);
    CHECK(weights.contains(name));
  }
  CHECK_FALSE(weights.contains("cls.predictions.decoder.weight"));  // tied: transformers leaves both out
  CHECK_FALSE(weights.contains("cls.predictions.decoder.bias"));
  CHECK(nlohmann::json::parse(std::ifstream(dir.file("config.json")))["architectures"][0] == "DebertaV2ForMaskedLM");

  auto [loaded, report] = load_deberta_v2_for_masked_lm(dir.path().string());
  CHECK(report.missing.empty());
  CHECK(report.unexpected.empty());
  loaded->eval();
  CHECK(loaded->predictions->decoder_weight().data_ptr() ==
        loaded->deberta->embeddings->word_embeddings->weight.data_ptr());
  torch::NoGradGuard no_grad;
  CHECK(torch::equal(model->full_logits(deberta_sample_ids()), loaded->full_logits(deberta_sample_ids())));

  // The same directory is a pre-trained encoder for fine-tuning: the classifier's encoder is the MLM's,
  // and the MLM head is reported as unexpected, not as an error.
  auto [classifier, classifier_report] = load_deberta_v2_for_sequence_classification(dir.path().string(), 3);
  CHECK(std::count(classifier_report.unexpected.begin(), classifier_report.unexpected.end(),
                   "cls.predictions.bias") == 1);
  classifier->eval();
  CHECK(torch::equal(classifier->deberta->forward(deberta_sample_ids()).last_hidden_state,
                     model->deberta->forward(deberta_sample_ids()).last_hidden_state));
}
