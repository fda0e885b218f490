// PEFT LoRA adapters both ways against Hugging Face PEFT itself (the pinned oracle,
// tests/oracle/peft_reference.py), generated live:
// - export: a LoRA and a CapaBoost-LoRA (d = 2) model trained a few steps on a tiny RoBERTa saved by
//   the suite, written as `capaboost export` writes them (peft_lora_adapter + save_peft_lora_adapter),
//   then loaded by their users' code, PeftModel.from_pretrained(AutoModelForSequenceClassification.
//   from_pretrained(base), adapter), must give the trained model's logits on 64 padded rows, and so must
//   PEFT's merge_and_unload();
// - import: LoRA adapters made and saved by PEFT on a checkpoint saved by transformers, loaded through
//   load_peft_lora_adapter, must give PEFT's logits.
// All within 1e-5; the largest differences are printed.

#include <catch2/catch.hpp>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "backbones/backbone_registry.h"
#include "checkpoint/safetensors.h"
#include "lib/peft/few_step_training.h"
#include "models/roberta_pretrained.h"
#include "peft/lora.h"
#include "peft/method_registry.h"
#include "peft/peft_lora_format.h"
#include "sites/site_registry.h"
#include "support/oracle_python.h"
#include "support/temp_dir.h"
#include "train/trainable_selection.h"

using namespace capaboost;

namespace {

constexpr double kExportTolerance = 1e-5;
constexpr int64_t kVocabulary = 50;

/// A tiny RoBERTa classifier (2 layers × 32, three labels, no dropout) with every parameter moved by
/// N(0, 0.1²) noise, so that biases and LayerNorms are not at their initial 0 and 1.
RobertaForSequenceClassification tiny_base() {
  torch::manual_seed(21);
  RobertaForSequenceClassification model(roberta_options()
                                             .vocab_size(kVocabulary)
                                             .hidden_size(32)
                                             .num_hidden_layers(2)
                                             .num_attention_heads(4)
                                             .intermediate_size(64)
                                             .max_position_embeddings(40)
                                             .num_labels(3)
                                             .hidden_dropout_prob(0.0)
                                             .attention_probs_dropout_prob(0.0));
  torch::NoGradGuard no_grad;
  for (auto& parameter : model->parameters()) parameter.add_(torch::randn_like(parameter) * 0.1);
  return model;
}

/// 64 rows of 3 to 20 tokens, <s> (0) … </s> (2) around random ids, right-padded with <pad> (1).
Batch padded_rows() {
  constexpr int64_t kRows = 64, kWidth = 20;
  Batch batch;
  auto ids = torch::ones({kRows, kWidth}, torch::kInt64);
  auto mask = torch::zeros({kRows, kWidth}, torch::kInt64);
  for (int64_t row = 0; row < kRows; ++row) {
    const int64_t length = 3 + (row * 7) % (kWidth - 2);
    ids[row].narrow(0, 0, length).copy_(torch::randint(3, kVocabulary, {length}, torch::kInt64));
    ids[row][0] = 0;
    ids[row][length - 1] = 2;
    mask[row].narrow(0, 0, length).fill_(1);
  }
  batch.inputs = {{"input_ids", ids}, {"attention_mask", mask}};
  batch.examples = kRows;
  return batch;
}

torch::Tensor eval_outputs(TaskModelImpl& model, const Batch& batch) {
  model.eval();
  torch::NoGradGuard no_grad;
  return model.forward_batch(batch);
}

double max_difference(const torch::Tensor& ours, const torch::Tensor& theirs) {
  INFO("shapes " << ours.sizes() << " (ours) and " << theirs.sizes() << " (PEFT)");
  REQUIRE(ours.sizes() == theirs.sizes());
  return (ours.to(torch::kFloat64) - theirs.to(torch::kFloat64)).abs().max().item<double>();
}

}  // namespace

TEST_CASE("trained LoRA and CapaBoost-LoRA exports give the trained model's logits in PEFT, merged too, live",
          "[oracle][peft_export]") {
  capaboost::testing::TempDir dir;
  {
    auto base = tiny_base();
    save_pretrained(*base, dir.file("base"));
  }
  torch::manual_seed(3);
  const Batch batch = padded_rows();
  save_safetensors(dir.file("inputs.safetensors"),
                   {{"input_ids", batch.input("input_ids")}, {"attention_mask", batch.input("attention_mask")}});

  const std::vector<std::pair<std::string, nlohmann::json>> runs = {
      {"LoRA r=4", {{"rank", 4}, {"alpha", 8}}},
      {"CapaBoost-LoRA d=2 r=2", {{"rank", 2}, {"alpha", 3}, {"branches", 2}, {"density", 0.5}}},
  };
  std::vector<std::string> arguments = {"export", dir.path().string(), dir.file("base"), dir.file("inputs.safetensors")};
  std::vector<torch::Tensor> trained_outputs;
  const MethodSpec& lora = find_method("lora");
  for (size_t i = 0; i < runs.size(); ++i) {
    INFO(runs[i].first);
    auto model = load_roberta_for_sequence_classification(dir.file("base")).model;
    lora.attach(*model, resolve_or_throw(lora.parameters, runs[i].second, "method lora"));
    select_trainable_parameters(*model, lora.trains_backbone_parameter, model->head_prefixes());
    const auto training = capaboost::testing::train_few_steps(model);
    CHECK(training.last_loss < training.first_loss);
    const std::string adapter = dir.file("adapter-" + std::to_string(i));
    save_peft_lora_adapter(peft_lora_adapter(*model, model->head_prefixes(), dir.file("base")), adapter);
    trained_outputs.push_back(eval_outputs(*model, batch));
    arguments.push_back(adapter);
  }

  capaboost::testing::run_oracle("peft_reference.py", arguments);
  const SafetensorsFile peft(dir.file("export.safetensors"));
  for (size_t i = 0; i < runs.size(); ++i) {
    INFO(runs[i].first);
    const double loaded = max_difference(trained_outputs[i], peft.tensor(std::to_string(i) + ".logits"));
    const double merged = max_difference(trained_outputs[i], peft.tensor(std::to_string(i) + ".merged_logits"));
    CHECK(loaded <= kExportTolerance);
    CHECK(merged <= kExportTolerance);
    std::cout << "oracle parity PEFT export " << runs[i].first << ": max |ours - PEFT| logits " << loaded
              << ", after merge_and_unload " << merged << "\n";
  }
}

TEST_CASE("LoRA adapters made by PEFT load through the suite's import and give PEFT's logits, live",
          "[oracle][peft_export]") {
  capaboost::testing::TempDir dir;
  capaboost::testing::run_oracle("peft_reference.py", {"import", dir.path().string()});
  const SafetensorsFile io(dir.file("io.safetensors"));
  Batch batch;
  batch.inputs = {{"input_ids", io.tensor("input_ids")}, {"attention_mask", io.tensor("attention_mask")}};
  batch.examples = io.tensor("input_ids").size(0);

  // Adapter 0 names query and value (all four sites); adapter 1 selects layer 1's by a regex.
  const std::vector<size_t> tuned_sites = {4, 2};
  for (size_t i = 0; i < tuned_sites.size(); ++i) {
    INFO("adapter-" << i);
    Backbone backbone = load_checkpoint(dir.file("base"), TaskHead{TaskHead::Kind::kSequenceClassification, 3});
    const auto before = eval_outputs(*backbone.model, batch);
    CHECK(load_peft_lora_adapter(*backbone.model, dir.file("adapter-" + std::to_string(i))).size() == tuned_sites[i]);
    const auto expected = io.tensor(std::to_string(i) + ".logits");
    const double difference = max_difference(eval_outputs(*backbone.model, batch), expected);
    CHECK(difference <= kExportTolerance);
    CHECK(max_difference(before, expected) > 1e-2);  // the adapter and its head change the outputs
    std::cout << "oracle parity PEFT import adapter-" << i << ": max |ours - PEFT| logits " << difference << "\n";
  }
}
