#include "models/bert_for_sequence_classification.h"

#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "models/bert_for_masked_lm.h"
#include "models/bert_pretrained.h"
#include "models/roberta.h"
#include "support/temp_dir.h"
#include "support/tensor_diff.h"

using namespace capaboost;
using Catch::Contains;

using capaboost::testing::max_diff;

namespace {

BertOptions tiny_bert(int64_t labels = 3) {
  return bert_options()
      .vocab_size(40)
      .hidden_size(16)
      .num_hidden_layers(2)
      .num_attention_heads(4)
      .intermediate_size(24)
      .max_position_embeddings(12)
      .num_labels(labels);
}

// Two right-padded rows (pad id 0) with their masks and a sentence-pair split in the second.
struct PairBatch {
  torch::Tensor ids = torch::tensor({{2, 7, 8, 3, 0, 0}, {2, 11, 12, 3, 13, 3}}, torch::kLong);
  torch::Tensor mask = ids.ne(0).to(torch::kLong);
  torch::Tensor types = torch::tensor({{0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 1, 1}}, torch::kLong);
};

}  // namespace

TEST_CASE("BERT parameter names are transformers' BertForSequenceClassification state-dict names", "[bert]") {
  BertForSequenceClassification model(tiny_bert().num_hidden_layers(1));
  std::set<std::string> names;
  for (const auto& item : model->named_parameters()) names.insert(item.key());
  for (const char* name : {"bert.embeddings.word_embeddings.weight", "bert.embeddings.position_embeddings.weight",
                           "bert.embeddings.token_type_embeddings.weight", "bert.embeddings.LayerNorm.weight",
                           "bert.encoder.layer.0.attention.self.query.weight",
                           "bert.encoder.layer.0.attention.output.LayerNorm.bias",
                           "bert.encoder.layer.0.intermediate.dense.weight", "bert.encoder.layer.0.output.dense.bias",
                           "bert.pooler.dense.weight", "classifier.weight", "classifier.bias"}) {
    CHECK(names.count(name) == 1);
  }
  CHECK(names.size() == 25);  // embeddings 5, one layer 16, pooler 2, classifier 2
  // The pooler is the head's first layer (RoBERTa's head dense, DeBERTa's pooler): it trains with it.
  CHECK(model->head_prefixes() == std::vector<std::string>{"bert.pooler.", "classifier."});
}

TEST_CASE("BERT positions count from 0 and the [CLS] position row trains, unlike RoBERTa's padding row", "[bert]") {
  // RoBERTa's position table has padding_idx = pad id, whose row never trains; BERT's pad id 0 is also
  // the position of [CLS], so a padding_idx there would freeze the first position's embedding.
  auto options = tiny_bert().hidden_dropout_prob(0).attention_probs_dropout_prob(0);
  BertModel model(options);
  PairBatch batch;
  const auto positions = bert_family_position_ids(batch.ids, BertFamily::kBert, options.pad_token_id());
  CHECK(torch::equal(positions[0], torch::arange(6, torch::kLong)));
  CHECK(torch::equal(positions[1], torch::arange(6, torch::kLong)));
  // A weighted sum: a plain sum of a LayerNorm output is the sum of its bias whatever the input, so its
  // gradient is rounding noise (it came out exactly 0 on one machine).
  const auto hidden = model->forward(batch.ids, batch.mask, batch.types).last_hidden_state;  // (2, 6, H)
  torch::manual_seed(0);
  (hidden * torch::randn_like(hidden)).sum().backward();
  const auto grad = model->embeddings->position_embeddings->weight.grad();
  CHECK(grad[0].abs().sum().item<double>() > 1e-3);
  CHECK(!model->embeddings->position_embeddings->options.padding_idx().has_value());

  BertModel roberta(roberta_options().vocab_size(40).hidden_size(16).num_hidden_layers(1).num_attention_heads(4)
                        .intermediate_size(24).max_position_embeddings(12));
  CHECK(roberta->embeddings->position_embeddings->options.padding_idx() == 1);
}

TEST_CASE("BERT reads token types: a pair's second segment changes the output, none means all zeros", "[bert]") {
  BertForSequenceClassification model(tiny_bert());
  model->eval();
  {
    torch::NoGradGuard no_grad;  // a type-1 embedding far from type 0's, as after pre-training
    model->bert->embeddings->token_type_embeddings->weight[1].normal_(0, 1);
  }
  PairBatch batch;
  const auto typed = model->forward(batch.ids, batch.mask, batch.types).logits;
  const auto untyped = model->forward(batch.ids, batch.mask).logits;
  const auto zeros = model->forward(batch.ids, batch.mask, torch::zeros_like(batch.ids)).logits;
  CHECK(max_diff(untyped, zeros) == 0);
  CHECK(max_diff(typed[0], untyped[0]) == 0);  // the first row has no second segment
  CHECK(max_diff(typed[1], untyped[1]) > 0);
  // The second segment's own states move by the type embedding's whole size (through LayerNorm).
  const auto states = model->bert->forward(batch.ids, batch.mask, batch.types).last_hidden_state;  // (B, T, C)
  const auto plain = model->bert->forward(batch.ids, batch.mask).last_hidden_state;
  CHECK(max_diff(states[1].narrow(0, 4, 2), plain[1].narrow(0, 4, 2)) > 0.1);

  Batch as_batch;
  as_batch.inputs = {{"input_ids", batch.ids}, {"attention_mask", batch.mask}, {"token_type_ids", batch.types}};
  CHECK(max_diff(model->forward_batch(as_batch), typed) == 0);
}

TEST_CASE("BERT's classifier on [CLS] alone equals the full pass, and padding does not leak", "[bert]") {
  BertForSequenceClassification model(tiny_bert());
  model->eval();
  PairBatch batch;
  const auto fast = model->forward(batch.ids, batch.mask, batch.types).logits;
  const auto full = model->forward(batch.ids, batch.mask, batch.types, BertForwardOptions().output_hidden_states(true));
  CHECK(max_diff(fast, full.logits) < 1e-6);
  CHECK(full.hidden_states.size() == 3);
  // Row 0 alone, without its padding, gives the same logits.
  const auto alone = model->forward(batch.ids[0].narrow(0, 0, 4).unsqueeze(0)).logits;
  CHECK(max_diff(alone[0], fast[0]) < 1e-6);
}

TEST_CASE("each family's classifier refuses the other family's options", "[bert]") {
  CHECK_THROWS_WITH(BertForSequenceClassification(roberta_options().num_hidden_layers(1)),
                    Contains("RobertaForSequenceClassification"));
  CHECK_THROWS_WITH(RobertaForSequenceClassification(tiny_bert()), Contains("BertForSequenceClassification"));
  CHECK_THROWS_WITH(BertForMaskedLM(roberta_options().num_hidden_layers(1)), Contains("RobertaForMaskedLM"));
}

TEST_CASE("BERT save_pretrained and load round trip, config.json as transformers writes BERT's", "[bert]") {
  testing::TempDir dir;
  BertForSequenceClassification model(tiny_bert(2));
  model->eval();
  save_pretrained(*model, dir.file("cls"));
  std::ifstream in(dir.file("cls/config.json"));
  const auto config = nlohmann::json::parse(in);
  CHECK(config["model_type"] == "bert");
  CHECK(config["architectures"][0] == "BertForSequenceClassification");
  CHECK(!config.contains("bos_token_id"));
  CHECK(config["pad_token_id"] == 0);

  auto [loaded, report] = load_bert_for_sequence_classification(dir.file("cls"));
  loaded->eval();
  CHECK(report.missing.empty());
  PairBatch batch;
  CHECK(max_diff(loaded->forward(batch.ids, batch.mask, batch.types).logits,
                 model->forward(batch.ids, batch.mask, batch.types).logits) == 0);
  // A new label count keeps the encoder and pooler, and gives a fresh classifier.
  auto relabelled = load_bert_for_sequence_classification(dir.file("cls"), 5);
  CHECK(relabelled.model->classifier->options.out_features() == 5);
  CHECK(relabelled.report.missing == std::vector<std::string>{"classifier.bias", "classifier.weight"});
  CHECK(torch::equal(relabelled.model->bert->pooler->dense->weight, model->bert->pooler->dense->weight));

  // The span model and the bare encoder load from the classifier's checkpoint (pooler accepted).
  auto qa = load_bert_family_for_question_answering(dir.file("cls"));
  CHECK(qa.model->options.family() == BertFamily::kBert);
  CHECK(torch::equal(qa.model->base->embeddings->word_embeddings->weight,
                     model->bert->embeddings->word_embeddings->weight));
  CHECK_THROWS_WITH(load_roberta_config(dir.file("cls/config.json")), Contains("model_type"));
}

TEST_CASE("BertForMaskedLM ties its decoder to the word embeddings and saves it once", "[bert]") {
  testing::TempDir dir;
  BertForMaskedLM model(tiny_bert().hidden_act(Activation::kGeluNew));
  model->eval();
  PairBatch batch;
  auto labels = torch::full_like(batch.ids, kIgnoreLabel);
  labels[0][1] = 7;
  labels[1][2] = 12;
  const auto out = model->forward(batch.ids, labels, batch.mask);
  const auto full = model->full_logits(batch.ids, batch.mask);  // (B, T, V)
  CHECK(max_diff(out.logits[0], full[0][1]) < 1e-6);
  CHECK(max_diff(out.logits[1], full[1][2]) < 1e-6);
  for (const auto& item : model->named_parameters()) CHECK(item.key().find("decoder") == std::string::npos);

  save_pretrained(*model, dir.file("mlm"));
  auto [loaded, report] = load_bert_for_masked_lm(dir.file("mlm"));
  loaded->eval();
  CHECK(max_diff(loaded->full_logits(batch.ids, batch.mask), full) == 0);
}
