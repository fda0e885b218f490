#include "models/roberta_pretrained.h"

#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checkpoint/safetensors.h"
#include "peft/lora.h"
#include "sites/site_registry.h"
#include "support/temp_dir.h"

using namespace capaboost;
using capaboost::testing::TempDir;
using Catch::Contains;

namespace {

BertOptions tiny_pretrained() {
  return roberta_options()
      .vocab_size(40)
      .hidden_size(8)
      .num_hidden_layers(2)
      .num_attention_heads(2)
      .intermediate_size(12)
      .max_position_embeddings(16)
      .num_labels(3);
}

torch::Tensor logits(RobertaForSequenceClassification& model) {
  torch::NoGradGuard no_grad;
  model->eval();
  const auto ids = torch::tensor({{0, 5, 6, 7, 2}, {0, 9, 2, 1, 1}}, torch::kLong);
  return model->forward(ids, ids.ne(1)).logits;
}

}  // namespace

TEST_CASE("save_pretrained writes config.json and model.safetensors that load back exactly",
          "[roberta][pretrained]") {
  TempDir dir;
  torch::manual_seed(0);
  RobertaForSequenceClassification model(
      tiny_pretrained().hidden_act(Activation::kGeluNew).label_names({"x", "y", "z"}));
  save_pretrained(*model, dir.path().string());
  CHECK(std::filesystem::exists(dir.path() / "config.json"));
  const SafetensorsFile weights(dir.file("model.safetensors"));
  CHECK(weights.metadata().at("format") == "pt");
  CHECK(weights.contains("roberta.encoder.layer.1.attention.self.query.weight"));
  CHECK(weights.contains("classifier.out_proj.bias"));

  auto [loaded, report] = load_roberta_for_sequence_classification(dir.path().string());
  CHECK(report.missing.empty());
  CHECK(report.unexpected.empty());
  CHECK(report.loaded.size() == weights.names().size());
  CHECK(loaded->options.hidden_act() == Activation::kGeluNew);
  CHECK(loaded->options.label_names() == std::vector<std::string>{"x", "y", "z"});
  CHECK(torch::equal(logits(model), logits(loaded)));
}

TEST_CASE("save_pretrained leaves tuners out unless asked", "[roberta][pretrained]") {
  TempDir dir;
  RobertaForSequenceClassification model(tiny_pretrained());
  attach_tuners(*model, SiteSelector{{"query", "value"}},
                [](const std::string& site, const TunableLinearImpl& layer) {
                  return std::make_shared<LoraImpl>(LoraOptions(2), site, layer.options.in_features(),
                                                    layer.options.out_features());
                });
  save_pretrained(*model, dir.file("plain"));
  CHECK_FALSE(SafetensorsFile(dir.file("plain/model.safetensors"))
                  .contains("roberta.encoder.layer.0.attention.self.query.lora.A"));
  CHECK(load_roberta_for_sequence_classification(dir.file("plain")).report.unexpected.empty());
  save_pretrained(*model, dir.file("tuned"), /*include_tuners=*/true);
  CHECK(SafetensorsFile(dir.file("tuned/model.safetensors"))
            .contains("roberta.encoder.layer.0.attention.self.query.lora.A"));
}

TEST_CASE("a pre-trained encoder loads into a classifier with a fresh head, and back",
          "[roberta][pretrained]") {
  TempDir dir;
  torch::manual_seed(1);
  BertModel encoder(tiny_pretrained());  // with pooler, names without the "roberta." prefix
  save_pretrained(*encoder, dir.file("encoder"));

  auto [classifier, report] = load_roberta_for_sequence_classification(dir.file("encoder"), /*num_labels=*/5);
  CHECK(report.missing == std::vector<std::string>{"classifier.dense.bias", "classifier.dense.weight",
                                                   "classifier.out_proj.bias", "classifier.out_proj.weight"});
  CHECK(report.unexpected == std::vector<std::string>{"pooler.dense.bias", "pooler.dense.weight"});
  CHECK(classifier->options.num_labels() == 5);
  CHECK(torch::equal(classifier->roberta->embeddings->word_embeddings->weight,
                     encoder->embeddings->word_embeddings->weight));

  save_pretrained(*classifier, dir.file("classifier"));
  auto bare = load_bert_family_model(dir.file("classifier"), /*add_pooling_layer=*/false);
  CHECK(bare.report.missing.empty());
  CHECK(bare.report.unexpected.size() == 4);  // the classification head
  CHECK(torch::equal(bare.model->encoder->named_parameters()["layer.1.output.dense.weight"],
                     encoder->encoder->named_parameters()["layer.1.output.dense.weight"]));
}

TEST_CASE("a checkpoint that does not fit the config is rejected, naming what is wrong",
          "[roberta][pretrained]") {
  TempDir dir;
  RobertaForSequenceClassification model(tiny_pretrained());
  save_pretrained(*model, dir.path().string());
  const auto weights_path = dir.file("model.safetensors");

  auto tensors = SafetensorsFile(weights_path).tensors();
  for (auto& [name, tensor] : tensors) tensor = tensor.clone();  // own memory before the file is replaced
  tensors.erase("roberta.encoder.layer.1.output.LayerNorm.bias");
  save_safetensors(weights_path, tensors);
  CHECK_THROWS_WITH(
      load_roberta_for_sequence_classification(dir.path().string()),
      Contains(weights_path) && Contains("missing: [roberta.encoder.layer.1.output.LayerNorm.bias]"));

  tensors["roberta.encoder.layer.1.output.LayerNorm.bias"] = torch::zeros({9});
  save_safetensors(weights_path, tensors);
  CHECK_THROWS_WITH(load_roberta_for_sequence_classification(dir.path().string()),
                    Contains(weights_path) && Contains("has shape [9]") && Contains("[8]"));

  tensors["roberta.encoder.layer.1.output.LayerNorm.bias"] = torch::zeros({8});
  tensors["roberta.encoder.layer.2.output.LayerNorm.bias"] = torch::zeros({8});  // a third layer
  save_safetensors(weights_path, tensors);
  CHECK_THROWS_WITH(load_roberta_for_sequence_classification(dir.path().string()),
                    Contains("unexpected: [roberta.encoder.layer.2.output.LayerNorm.bias]"));

  CHECK_THROWS_WITH(load_roberta_for_sequence_classification(dir.file("nowhere")),
                    Contains("nowhere/config.json") && Contains("cannot open"));
}

TEST_CASE("a fine-tuned classifier loads for a task with another label count: encoder kept, classifier fresh",
          "[roberta][pretrained]") {
  TempDir dir;
  torch::manual_seed(0);
  RobertaForSequenceClassification trained(tiny_pretrained());  // three labels
  save_pretrained(*trained, dir.path().string());
  torch::manual_seed(1);
  auto [model, report] = load_roberta_for_sequence_classification(dir.path().string(), 2);
  CHECK(model->options.num_labels() == 2);
  CHECK(torch::equal(model->roberta->embeddings->word_embeddings->weight,
                     trained->roberta->embeddings->word_embeddings->weight));
  CHECK(torch::equal(model->classifier->dense->weight, trained->classifier->dense->weight));
  CHECK_THAT(fmt::format("{}", fmt::join(report.unexpected, " ")), Contains("classifier.out_proj.weight"));
  CHECK(std::count(report.loaded.begin(), report.loaded.end(), "classifier.out_proj.weight") == 0);
}

TEST_CASE("a pre-trained encoder loads into a question-answering model with a fresh span head, and back",
          "[roberta][pretrained]") {
  TempDir dir;
  torch::manual_seed(2);
  BertModel encoder(tiny_pretrained());
  save_pretrained(*encoder, dir.file("encoder"));

  auto [qa, report] = load_bert_family_for_question_answering(dir.file("encoder"));
  CHECK(report.missing == std::vector<std::string>{"qa_outputs.bias", "qa_outputs.weight"});
  CHECK(torch::equal(qa->base->embeddings->word_embeddings->weight, encoder->embeddings->word_embeddings->weight));

  // A fine-tuned question-answering checkpoint loads whole; a classifier reads its encoder only.
  save_pretrained(*qa, dir.file("qa"));
  auto again = load_bert_family_for_question_answering(dir.file("qa"));
  CHECK(again.report.missing.empty());
  CHECK(again.report.unexpected.empty());
  CHECK(torch::equal(again.model->qa_outputs->weight, qa->qa_outputs->weight));
  auto classifier = load_roberta_for_sequence_classification(dir.file("qa"), 2);
  CHECK(classifier.report.unexpected == std::vector<std::string>{"qa_outputs.bias", "qa_outputs.weight"});
}
