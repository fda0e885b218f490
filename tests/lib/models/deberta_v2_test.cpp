// DeBERTa-v2 beyond what the golden fixtures cover: inputs longer than half the position buckets
// (the log-bucket branch), left padding, the optional parts of the architecture (separate position
// projections, convolution, absolute positions, token types, a narrower embedding), the heads' losses
// and the key-value extension point.

#include "models/deberta_v2.h"

#include <catch2/catch.hpp>

#include "sites/site_registry.h"

using namespace capaboost;

namespace {

// Small enough for microseconds, with 8 buckets so that 20 tokens reach the log branch.
DebertaV2Options tiny_deberta(int64_t num_labels = 2) {
  return DebertaV2Options()
      .vocab_size(50)
      .hidden_size(16)
      .num_hidden_layers(2)
      .num_attention_heads(2)
      .intermediate_size(24)
      .max_position_embeddings(64)
      .position_buckets(8)
      .num_labels(num_labels);
}

torch::Tensor tokens(int64_t batch, int64_t length) { return torch::randint(3, 50, {batch, length}, torch::kLong); }

}  // namespace

TEST_CASE("DeBERTaV3 outputs do not move with left or right padding, beyond half the buckets", "[models][deberta]") {
  torch::manual_seed(5);
  DebertaV2Model model(tiny_deberta());
  model->eval();
  torch::NoGradGuard no_grad;
  const auto ids = tokens(1, 20);  // distances up to 19 > 4: the log-bucket branch
  const auto alone = model->forward(ids).last_hidden_state;  // (1, 20, 16)
  for (const bool left : {true, false}) {
    INFO((left ? "left" : "right") << " padding");
    const auto pad = torch::zeros({1, 5}, torch::kLong);  // pad_token_id 0
    const auto padded_ids = left ? torch::cat({pad, ids}, 1) : torch::cat({ids, pad}, 1);
    auto mask = torch::ones({1, 25}, torch::kLong);
    mask.narrow(1, left ? 0 : 20, 5).zero_();
    const auto out = model->forward(padded_ids, mask, {}, DebertaV2ForwardOptions().output_attentions(true));
    CHECK(torch::allclose(out.last_hidden_state.narrow(1, left ? 5 : 0, 20), alone, 1e-5, 1e-5));
    // Padded keys get no weight; padded query rows are all zero, as transformers' XSoftmax gives them.
    const auto& probs = out.attentions[0];  // (1, H, 25, 25)
    const auto pad_keys = probs.narrow(3, left ? 0 : 20, 5);
    CHECK(pad_keys.abs().max().item<float>() == 0.0f);
    CHECK(probs.narrow(2, left ? 0 : 20, 5).abs().max().item<float>() == 0.0f);
  }
}

TEST_CASE("the optional parts of DeBERTa-v2 build with transformers' parameter names and run", "[models][deberta]") {
  torch::manual_seed(6);
  auto options = tiny_deberta(3)
                     .share_att_key(false)
                     .conv_kernel_size(3)
                     .position_biased_input(true)
                     .type_vocab_size(2)
                     .embedding_size(8)
                     .norm_rel_ebd(false);
  DebertaV2ForSequenceClassification model(options);
  const auto parameters = model->named_parameters();
  for (const char* name :
       {"deberta.embeddings.word_embeddings.weight", "deberta.embeddings.position_embeddings.weight",
        "deberta.embeddings.token_type_embeddings.weight", "deberta.embeddings.embed_proj.weight",
        "deberta.encoder.layer.1.attention.self.pos_key_proj.weight",
        "deberta.encoder.layer.1.attention.self.pos_query_proj.bias", "deberta.encoder.conv.conv.weight",
        "deberta.encoder.conv.LayerNorm.weight", "deberta.encoder.rel_embeddings.weight", "pooler.dense.weight",
        "classifier.bias"}) {
    INFO(name);
    CHECK(parameters.contains(name));
  }
  CHECK_FALSE(parameters.contains("deberta.encoder.LayerNorm.weight"));  // norm_rel_ebd none
  CHECK_FALSE(parameters.contains("deberta.embeddings.embed_proj.bias"));
  CHECK(parameters["deberta.encoder.rel_embeddings.weight"].size(0) == 16);  // 2 × 8 buckets
  model->eval();
  torch::NoGradGuard no_grad;
  auto mask = torch::ones({2, 12}, torch::kLong);
  mask[1].narrow(0, 9, 3).zero_();
  const auto out = model->forward(tokens(2, 12), mask, torch::randint(0, 2, {2, 12}, torch::kLong),
                                  DebertaV2ForwardOptions().output_hidden_states(true));
  CHECK(out.logits.sizes() == torch::IntArrayRef({2, 3}));
  CHECK(out.hidden_states.size() == 3);
  // The convolution zeroes padded positions after the first layer, as transformers' ConvLayer.
  CHECK(out.hidden_states[1][1].narrow(0, 9, 3).abs().max().item<float>() == 0.0f);
  CHECK(torch::isfinite(out.logits).all().item<bool>());
}

TEST_CASE("DeBERTa's heads compute transformers' losses", "[models][deberta]") {
  torch::manual_seed(7);
  DebertaV2ForSequenceClassification classifier(tiny_deberta(3));
  const auto logits = torch::randn({4, 3});
  const auto labels = torch::tensor({2, -1, 0, 1}, torch::kLong);  // a negative label does not count
  const auto kept = torch::tensor({0, 2, 3}, torch::kLong);
  CHECK(torch::allclose(classifier->loss(logits, labels),
                        torch::cross_entropy_loss(logits.index_select(0, kept), labels.index_select(0, kept))));
  CHECK(classifier->loss(logits, torch::full({4}, -1, torch::kLong)).item<float>() == 0.0f);
  DebertaV2ForSequenceClassification regression(tiny_deberta(1));
  const auto scores = torch::randn({4, 1}), targets = torch::randn({4});
  CHECK(torch::allclose(regression->loss(scores, targets), torch::mse_loss(scores.view(-1), targets)));

  DebertaV2ForQuestionAnswering qa(tiny_deberta());
  const SpanLogits spans{torch::randn({2, 6}), torch::randn({2, 6})};
  // Position 6 is outside the 6 tokens: ignored, and larger positions are clamped to it.
  const auto loss = qa->loss(spans, torch::tensor({1, 9}, torch::kLong), torch::tensor({3, 2}, torch::kLong));
  const auto start = torch::cross_entropy_loss(spans.start.narrow(0, 0, 1), torch::tensor({1}, torch::kLong));
  const auto end = torch::cross_entropy_loss(spans.end, torch::tensor({3, 2}, torch::kLong));
  CHECK(torch::allclose(loss, (start + end) / 2));
  Batch batch;
  batch.inputs["input_ids"] = tokens(2, 6);
  batch.inputs["start_positions"] = torch::tensor({1, 2}, torch::kLong);
  batch.inputs["end_positions"] = torch::tensor({3, 4}, torch::kLong);
  const auto outputs = qa->forward_batch(batch);
  CHECK(outputs.sizes() == torch::IntArrayRef({2, 6, 2}));
  CHECK(std::isfinite(qa->batch_loss(outputs, batch).item<float>()));
}

TEST_CASE("DeBERTa's attention is an attention site and its projections are linear sites", "[models][deberta]") {
  DebertaV2ForSequenceClassification model(tiny_deberta());
  const auto attention = find_attention_sites(*model);
  REQUIRE(attention.size() == 2);
  CHECK(attention[0].first == "deberta.encoder.layer.0.attention.self");
  std::vector<std::string> sites;
  for (const auto& [name, site] : find_sites(*model)) sites.push_back(name);
  for (const char* name : {"deberta.encoder.layer.0.attention.self.query_proj", "deberta.encoder.layer.0.attention.self.key_proj",
                           "deberta.encoder.layer.0.attention.self.value_proj", "deberta.encoder.layer.0.attention.output.dense",
                           "deberta.encoder.layer.0.intermediate.dense", "deberta.encoder.layer.0.output.dense",
                           "pooler.dense", "classifier"}) {
    INFO(name);
    CHECK(std::count(sites.begin(), sites.end(), name) == 1);
  }
}

namespace {

// Prepends `length` random key/value positions that the mask then hides: attention must come out as
// if nothing was added (test-only).
class HiddenPrefixImpl : public KeyValueTunerImpl {
 public:
  explicit HiddenPrefixImpl(int64_t length) : length_(length) {}
  std::string kind() const override { return "hidden_prefix"; }
  TunerParameterCount parameter_count() const override { return {}; }
  KeyValues extend(KeyValues state) override {
    const auto extra = [&](const torch::Tensor& x) {
      auto sizes = x.sizes().vec();
      sizes[2] = length_;
      return torch::cat({torch::randn(sizes), x}, 2);
    };
    state.keys = extra(state.keys);
    state.values = extra(state.values);
    const int64_t batch = state.keys.size(0);
    auto hidden = torch::full({batch, 1, 1, length_}, std::numeric_limits<float>::lowest());
    state.mask = state.mask.defined() ? torch::cat({hidden.expand({batch, 1, state.mask.size(2), length_}), state.mask}, -1)
                                      : hidden;
    return state;
  }

 private:
  int64_t length_;
};

}  // namespace

TEST_CASE("a key-value tuner on DeBERTa adds positions the relative terms leave at zero", "[models][deberta]") {
  torch::manual_seed(8);
  DebertaV2Model model(tiny_deberta());
  model->eval();
  torch::NoGradGuard no_grad;
  const auto ids = tokens(2, 10);
  const auto before = model->forward(ids).last_hidden_state;
  attach_key_value_tuners(*model, SiteSelector{{"attention.self"}},
                          [](const std::string&, const AttentionSiteImpl&) { return std::make_shared<HiddenPrefixImpl>(3); });
  const auto out = model->forward(ids, {}, {}, DebertaV2ForwardOptions().output_attentions(true));
  CHECK(out.attentions[0].size(-1) == 13);
  CHECK(torch::allclose(out.last_hidden_state, before, 1e-5, 1e-5));
}
