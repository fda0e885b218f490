#include "models/roberta.h"

#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <set>

#include "models/batched_matmul.h"
#include "peft/lora.h"
#include "sites/site_registry.h"
#include "support/tensor_diff.h"

using namespace capaboost;
using Catch::Contains;

using capaboost::testing::max_diff;

namespace {

BertOptions tiny_roberta(int64_t layers = 2, int64_t labels = 3) {
  return roberta_options()
      .vocab_size(50)
      .hidden_size(16)
      .num_hidden_layers(layers)
      .num_attention_heads(4)
      .intermediate_size(24)
      .max_position_embeddings(20)
      .num_labels(labels);
}

TunerFactory lora(int64_t rank) {
  return [rank](const std::string& site, const TunableLinearImpl& layer) {
    auto tuner = std::make_shared<LoraImpl>(LoraOptions(rank), site, layer.options.in_features(),
                                            layer.options.out_features());
    torch::NoGradGuard no_grad;
    tuner->B.normal_(0, 0.5);  // nonzero, as after training, so the update matters
    return tuner;
  };
}

// A left-padded and a right-padded row, with the attention mask that goes with them.
std::pair<torch::Tensor, torch::Tensor> padded_batch() {
  auto ids = torch::tensor({{0, 7, 8, 9, 2, 1, 1}, {1, 1, 0, 11, 12, 13, 2}}, torch::kLong);
  return {ids, ids.ne(1).to(torch::kLong)};
}

}  // namespace

TEST_CASE("RoBERTa parameter names are Hugging Face's state-dict names", "[roberta]") {
  RobertaForSequenceClassification model(tiny_roberta(1));
  std::set<std::string> names;
  for (const auto& item : model->named_parameters()) names.insert(item.key());
  const std::string layer = "roberta.encoder.layer.0.";
  const std::set<std::string> expected = {
      "roberta.embeddings.word_embeddings.weight",
      "roberta.embeddings.position_embeddings.weight",
      "roberta.embeddings.token_type_embeddings.weight",
      "roberta.embeddings.LayerNorm.weight",
      "roberta.embeddings.LayerNorm.bias",
      layer + "attention.self.query.weight",
      layer + "attention.self.query.bias",
      layer + "attention.self.key.weight",
      layer + "attention.self.key.bias",
      layer + "attention.self.value.weight",
      layer + "attention.self.value.bias",
      layer + "attention.output.dense.weight",
      layer + "attention.output.dense.bias",
      layer + "attention.output.LayerNorm.weight",
      layer + "attention.output.LayerNorm.bias",
      layer + "intermediate.dense.weight",
      layer + "intermediate.dense.bias",
      layer + "output.dense.weight",
      layer + "output.dense.bias",
      layer + "output.LayerNorm.weight",
      layer + "output.LayerNorm.bias",
      "classifier.dense.weight",
      "classifier.dense.bias",
      "classifier.out_proj.weight",
      "classifier.out_proj.bias",
  };
  CHECK(names == expected);
  CHECK(model->named_buffers().is_empty());
  // The bare model carries a pooler by default, as transformers' BertModel.
  BertModel bare(tiny_roberta(1));
  CHECK(bare->named_parameters().contains("pooler.dense.weight"));
  CHECK(bare->named_parameters().contains("encoder.layer.0.attention.self.query.weight"));
  // Dropout modules sit where transformers has them.
  std::set<std::string> modules;
  for (const auto& item : model->named_modules()) modules.insert(item.key());
  for (const auto* dropout : {"roberta.embeddings.dropout", "roberta.encoder.layer.0.attention.self.dropout",
                              "roberta.encoder.layer.0.attention.output.dropout",
                              "roberta.encoder.layer.0.output.dropout", "classifier.dropout"}) {
    CHECK(modules.count(dropout) == 1);
  }
}

TEST_CASE("every RoBERTa linear layer is a site tuners attach to by suffix or regex", "[roberta]") {
  RobertaForSequenceClassification model(tiny_roberta(3));
  CHECK(find_sites(*model).size() == 3 * 6 + 2);
  const auto one = attach_tuners(
      *model, SiteSelector{{}, R"(roberta\.encoder\.layer\.1\.attention\.self\.query)"}, lora(2));
  CHECK(one == std::vector<std::string>{"roberta.encoder.layer.1.attention.self.query"});
  RobertaForSequenceClassification other(tiny_roberta(3));
  const auto qv = attach_tuners(*other, SiteSelector{{"query", "value"}}, lora(2));
  CHECK(qv.size() == 6);
  CHECK(other->named_parameters().contains("roberta.encoder.layer.2.attention.self.value.lora.A"));
}

TEST_CASE("RoBERTa position ids count real tokens from pad_token_id + 1, ignoring padding on either side",
          "[roberta]") {
  auto ids = torch::tensor({{0, 5, 6, 2, 1, 1}, {1, 1, 0, 5, 6, 2}, {0, 1, 5, 1, 6, 2}}, torch::kLong);
  auto expected = torch::tensor({{2, 3, 4, 5, 1, 1}, {1, 1, 2, 3, 4, 5}, {2, 1, 3, 1, 4, 5}}, torch::kLong);
  CHECK(torch::equal(roberta_position_ids(ids, 1), expected));

  auto mask = additive_attention_mask(torch::tensor({{1, 0}}, torch::kLong), torch::kFloat);
  CHECK(mask.sizes() == torch::IntArrayRef({1, 1, 1, 2}));
  CHECK(mask[0][0][0][0].item<float>() == 0.0f);
  CHECK(mask[0][0][0][1].item<float>() == std::numeric_limits<float>::lowest());
  CHECK(additive_attention_mask(torch::tensor({{0}}), torch::kDouble).item<double>() ==
        std::numeric_limits<double>::lowest());
}

TEST_CASE("RoBERTa rejects inputs longer than its position table, saying how long they may be", "[roberta]") {
  BertModel model(tiny_roberta());
  model->eval();
  CHECK_NOTHROW(model->forward(torch::full({1, 18}, 5, torch::kLong)));
  CHECK_THROWS_WITH(model->forward(torch::full({1, 19}, 5, torch::kLong)),
                    Contains("max_position_embeddings is 20") && Contains("at most 18 tokens"));
}

TEST_CASE("RoBERTa outputs: every hidden state, attention probabilities, masked keys get zero weight",
          "[roberta]") {
  torch::manual_seed(0);
  BertModel model(tiny_roberta());
  model->eval();
  auto [ids, mask] = padded_batch();
  const auto out = model->forward(ids, mask, {},
                                  BertForwardOptions().output_hidden_states(true).output_attentions(true));
  REQUIRE(out.hidden_states.size() == 3);
  REQUIRE(out.attentions.size() == 2);
  CHECK(torch::equal(out.hidden_states.back(), out.last_hidden_state));
  CHECK(out.pooler_output.sizes() == torch::IntArrayRef({2, 16}));
  CHECK(out.attentions[0].sizes() == torch::IntArrayRef({2, 4, 7, 7}));
  CHECK(max_diff(out.attentions[1].sum(-1), torch::ones({2, 4, 7})) < 1e-6);
  // Padded key positions get exactly zero probability.
  CHECK(out.attentions[0]
            .index({0, torch::indexing::Slice(), torch::indexing::Slice(), 5})
            .abs()
            .max()
            .item<float>() == 0.0f);
  CHECK(out.attentions[1]
            .index({1, torch::indexing::Slice(), torch::indexing::Slice(), 0})
            .abs()
            .max()
            .item<float>() == 0.0f);
  // Left padding does not change the real tokens' states: row 1 alone, unpadded.
  const auto alone = model->forward(ids.index({torch::indexing::Slice(1, 2), torch::indexing::Slice(2)}));
  CHECK(max_diff(alone.last_hidden_state[0], out.last_hidden_state[1].narrow(0, 2, 5)) < 1e-5);
}

TEST_CASE("the first-token shortcut gives the full pass's logits and gradients", "[roberta]") {
  torch::manual_seed(1);
  RobertaForSequenceClassification model(tiny_roberta(3));
  attach_tuners(*model, SiteSelector{{"query", "value"}}, lora(4));
  freeze_backbone(*model, {"classifier."});
  model->eval();
  auto [ids, mask] = padded_batch();
  const auto probe = torch::randn({2, 3});
  const auto gradients = [&](bool full) {
    for (auto& p : model->parameters()) p.mutable_grad().reset();
    const auto out = model->forward(ids, mask, {}, BertForwardOptions().output_hidden_states(full));
    (out.logits * probe).sum().backward();
    std::vector<torch::Tensor> grads{out.logits.detach()};
    for (const auto& p : model->parameters()) {
      if (p.requires_grad()) grads.push_back(p.grad().clone());
    }
    return grads;
  };
  const auto shortcut = gradients(false), full = gradients(true);
  REQUIRE(shortcut.size() == 1 + 3 * 2 * 2 + 4);  // logits, A and B of 6 sites, 4 head tensors
  for (size_t i = 0; i < full.size(); ++i) {
    INFO("tensor " << i);
    CHECK(full[i].abs().max().item<double>() > 0);
    CHECK(max_diff(shortcut[i], full[i]) < 1e-5);
  }
}

TEST_CASE("batched_matmul equals matmul on strided head views, values and gradients",
          "[roberta][attention]") {
  torch::manual_seed(2);
  // (B, T, H·d) projections split into heads by view + permute, as attention does.
  auto q_flat = torch::randn({3, 5, 4 * 6}, torch::kDouble).requires_grad_();
  auto k_flat = torch::randn({3, 7, 4 * 6}, torch::kDouble).requires_grad_();
  auto q = q_flat.view({3, 5, 4, 6}).permute({0, 2, 1, 3});
  auto k = k_flat.view({3, 7, 4, 6}).permute({0, 2, 1, 3});
  const auto probe = torch::randn({3, 4, 5, 7}, torch::kDouble);

  auto ours = batched_matmul(q, k.transpose(-1, -2), 0.25);
  auto [gq, gk] = [&] {
    auto g = torch::autograd::grad({(ours * probe).sum()}, {q_flat, k_flat});
    return std::make_pair(g[0], g[1]);
  }();
  auto reference = torch::matmul(q, k.transpose(-1, -2)) * 0.25;
  auto g_ref = torch::autograd::grad({(reference * probe).sum()}, {q_flat, k_flat});
  CHECK(ours.is_contiguous());
  CHECK(max_diff(ours, reference) < 1e-12);
  CHECK(max_diff(gq, g_ref[0]) < 1e-12);
  CHECK(max_diff(gk, g_ref[1]) < 1e-12);
  CHECK_THROWS_WITH(batched_matmul(torch::ones({2, 3, 4}), torch::ones({3, 4, 5})), Contains("batch shapes"));

  // float32 goes straight to BLAS (runtime/direct_sgemm) instead of ATen: same values and gradients.
  const auto qf_flat = q_flat.detach().to(torch::kFloat).requires_grad_();
  const auto kf_flat = k_flat.detach().to(torch::kFloat).requires_grad_();
  const auto qf = qf_flat.view({3, 5, 4, 6}).permute({0, 2, 1, 3});
  const auto kf = kf_flat.view({3, 7, 4, 6}).permute({0, 2, 1, 3});
  const auto ours_f = batched_matmul(qf, kf.transpose(-1, -2), 0.25);
  const auto g_f = torch::autograd::grad({(ours_f * probe.to(torch::kFloat)).sum()}, {qf_flat, kf_flat});
  CHECK(max_diff(ours_f.to(torch::kDouble), reference) < 1e-5);
  CHECK(max_diff(g_f[0].to(torch::kDouble), g_ref[0]) < 1e-5);
  CHECK(max_diff(g_f[1].to(torch::kDouble), g_ref[1]) < 1e-5);
}

TEST_CASE("RoBERTa dropout is active in training and identity in evaluation", "[roberta]") {
  RobertaForSequenceClassification model(tiny_roberta());
  auto [ids, mask] = padded_batch();
  model->eval();
  CHECK(torch::equal(model->forward(ids, mask).logits, model->forward(ids, mask).logits));
  model->train();
  CHECK_FALSE(torch::equal(model->forward(ids, mask).logits, model->forward(ids, mask).logits));
}

TEST_CASE("RoBERTa fresh weights follow transformers' initialisation", "[roberta]") {
  torch::manual_seed(3);
  RobertaForSequenceClassification model(
      tiny_roberta(2).hidden_size(64).num_attention_heads(4).intermediate_size(128));
  auto params = model->named_parameters();
  CHECK(params["roberta.embeddings.word_embeddings.weight"][1].abs().max().item<float>() == 0.0f);  // pad row
  CHECK(params["roberta.embeddings.position_embeddings.weight"][1].abs().max().item<float>() == 0.0f);
  CHECK(params["roberta.encoder.layer.1.output.LayerNorm.weight"].eq(1).all().item<bool>());
  CHECK(params["classifier.out_proj.bias"].eq(0).all().item<bool>());
  const double std = params["roberta.encoder.layer.0.intermediate.dense.weight"].std().item<double>();
  CHECK(std == Approx(0.02).epsilon(0.1));
}

TEST_CASE("sequence classification loss follows transformers' problem types", "[roberta][loss]") {
  auto logits = torch::tensor({{0.5, -1.0, 2.0}, {1.0, 0.0, -0.5}});
  auto classes = torch::tensor({2, 0}, torch::kLong);
  const double ce = (-torch::log_softmax(logits, 1).gather(1, classes.unsqueeze(1))).mean().item<double>();
  CHECK(sequence_classification_loss(logits, classes).item<double>() == Approx(ce));

  auto scores = torch::tensor({{0.5}, {2.0}});
  auto targets = torch::tensor({1.0, 1.0});
  CHECK(sequence_classification_loss(scores, targets).item<double>() == Approx((0.25 + 1.0) / 2));  // MSE

  auto multi = torch::tensor({{1.0, 0.0, 1.0}, {0.0, 0.0, 1.0}});
  CHECK(infer_problem_type(3, multi) == ProblemType::kMultiLabelClassification);
  CHECK(sequence_classification_loss(logits, multi).item<double>() ==
        Approx(torch::binary_cross_entropy_with_logits(logits, multi).item<double>()));
  // An explicit problem type wins over inference.
  CHECK(sequence_classification_loss(logits, multi, ProblemType::kRegression).item<double>() ==
        Approx(torch::mse_loss(logits, multi).item<double>()));
}

TEST_CASE("activations: gelu is the erf form, gelu_new the tanh form", "[roberta]") {
  auto x = torch::linspace(-4, 4, 81, torch::kDouble);
  auto erf_gelu = 0.5 * x * (1 + torch::erf(x / std::sqrt(2.0)));
  auto tanh_gelu = 0.5 * x * (1 + torch::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x.pow(3))));
  CHECK(max_diff(activate(Activation::kGelu, x), erf_gelu) < 1e-12);
  CHECK(max_diff(activate(Activation::kGeluNew, x), tanh_gelu) < 1e-12);
  CHECK(max_diff(activate(Activation::kGelu, x), tanh_gelu) > 1e-5);  // the two differ measurably
  CHECK(torch::equal(activate(Activation::kRelu, x), torch::relu(x)));
  CHECK(parse_activation(to_string(Activation::kGeluNew)) == Activation::kGeluNew);
}

TEST_CASE("RoBERTa's span head: start and end logits of every token, and transformers' span loss",
          "[roberta][loss]") {
  torch::manual_seed(5);
  RobertaForQuestionAnswering qa(tiny_roberta());
  qa->eval();
  const auto [ids, mask] = padded_batch();
  const auto spans = qa->forward(ids, mask);
  REQUIRE(spans.start.sizes() == ids.sizes());
  // The head is one linear layer on every token's last hidden state.
  const auto hidden = qa->base->forward(ids, mask).last_hidden_state;  // (B, T, C)
  const auto expected = torch::nn::functional::linear(hidden, qa->qa_outputs->weight, qa->qa_outputs->bias);
  CHECK(max_diff(spans.start, expected.select(-1, 0)) < 1e-6);
  CHECK(max_diff(spans.end, expected.select(-1, 1)) < 1e-6);

  // Batch interface: (B, T, 2) outputs, labels read from the batch inputs.
  Batch batch;
  batch.inputs = {{"input_ids", ids}, {"attention_mask", mask}};
  const auto outputs = qa->forward_batch(batch);
  CHECK(outputs.sizes() == torch::IntArrayRef({2, 7, 2}));
  CHECK_THROWS_WITH(qa->batch_loss(outputs, batch), Contains("_positions"));
  // Row 0 answers at (1, 3); row 1's start lies beyond the input (9 > T = 7): clamped to T and ignored,
  // so the start loss averages row 0 alone while the end loss averages both rows.
  batch.inputs["start_positions"] = torch::tensor({1, 9}, torch::kLong);
  batch.inputs["end_positions"] = torch::tensor({3, 2}, torch::kLong);
  const auto loss = qa->batch_loss(outputs, batch);
  const auto start = torch::cross_entropy_loss(spans.start.narrow(0, 0, 1), torch::tensor({1}, torch::kLong));
  const auto end = torch::cross_entropy_loss(spans.end, torch::tensor({3, 2}, torch::kLong));
  CHECK(loss.item<double>() == Approx(((start + end) / 2).item<double>()).epsilon(1e-5));
  CHECK(qa->head_prefixes() == std::vector<std::string>{"qa_outputs."});
}
