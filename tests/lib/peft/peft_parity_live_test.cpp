// The suite's PEFT layers against Hugging Face PEFT (the pinned oracle, tests/oracle/peft_reference.py),
// generated live on a random RoBERTa classifier that transformers saved. PEFT wraps the model with the
// method, re-draws every trainable tensor (LoRA's B and AdaLoRA's E non-zero) and records, in training
// mode without dropout, the logits of a padded batch and the gradient of the cross-entropy with respect
// to every trainable tensor. The suite loads the same checkpoint, attaches the method through its
// registry as a run does, takes PEFT's values for every trainable tensor (the tuners' and the head's,
// which PEFT trains as modules_to_save) and must give the same logits, loss and gradients within 1e-5.
//
// How the methods map onto PEFT 0.21:
// - LoRA: LoraConfig(r, lora_alpha, target_modules ["query", "value"]); A, B as lora_A, lora_B. On a
//   Llama classifier (grouped-query attention) the targets are all seven projections and the head is
//   "score".
// - AdaLoRA: AdaLoraConfig(init_r, lora_alpha, same targets); P, λ, Q as lora_A, lora_E, lora_B.
//   PEFT scales by lora_alpha / (r + 1e-5) where the suite scales by alpha / r (peft/adalora.h), so
//   the suite runs with alpha = lora_alpha · r / (r + 1e-5), the same scale. The budget allocator and
//   the orthogonality regulariser act between steps and on the loss, not in this forward pass.
// - Prefix tuning: PrefixTuningConfig(num_virtual_tokens, prefix_projection, encoder_hidden_size):
//   the same reparameterisation (embedding → Linear → tanh → Linear to layers · 2 · C, layer i's keys
//   then values in columns [2iC, 2(i+1)C)) and the same mask over the prefix. One convention differs:
//   PEFT counts the prefix as past tokens and shifts the real tokens' positions by its length (RoBERTa's
//   learned positions then differ), while the suite, as adapter-transformers that ProPETL ran, keeps
//   the positions a model without prefix gives; the oracle passes position_ids that undo PEFT's shift.
//
// The initialisation check compares the suite's `lora_init: peft` with PEFT's own draws in
// distribution, on a 768-wide layer.

#include <catch2/catch.hpp>
#include <cmath>
#include <iostream>
#include <map>
#include <string>

#include "backbones/backbone_registry.h"
#include "checkpoint/safetensors.h"
#include "lib/peft/oracle_step_parity.h"
#include "peft/adalora.h"
#include "peft/lora.h"
#include "peft/method_registry.h"
#include "sites/site_registry.h"
#include "support/oracle_python.h"
#include "support/temp_dir.h"

using namespace capaboost;

namespace {

constexpr double kPeftTolerance = 1e-5;

/// Every trainable tensor of `model` by the oracle's names: "<site>.lora_A" / "lora_B" (and "lora_E"
/// for AdaLoRA), "prefix.<name>" for the prefix encoder's "encoder.<name>", the head's by their own.
std::map<std::string, torch::Tensor> trainables_by_oracle_name(TaskModelImpl& model) {
  std::map<std::string, torch::Tensor> named;
  for (const auto& [name, tuner] : find_tuners(model)) {
    const std::string site = name.substr(0, name.size() - tuner->kind().size() - 1);
    if (auto* lora = dynamic_cast<LoraImpl*>(tuner.get())) {
      named[site + ".lora_A"] = lora->A;
      named[site + ".lora_B"] = lora->B;
    } else if (auto* adalora = dynamic_cast<AdaLoraImpl*>(tuner.get())) {
      named[site + ".lora_A"] = adalora->lora_A;
      named[site + ".lora_E"] = adalora->lora_E;
      named[site + ".lora_B"] = adalora->lora_B;
    } else {
      REQUIRE(tuner->kind() == "prefix");
      for (const auto& item : tuner->named_parameters()) {  // only the site that owns the shared encoder has any
        REQUIRE(item.key().rfind("encoder.", 0) == 0);
        named["prefix." + item.key().substr(std::string("encoder.").size())] = item.value();
      }
    }
  }
  named.merge(capaboost::testing::head_tensors(model));
  return named;
}

/// PEFT's `method` (a peft_reference.py method) against the suite's `method_name` with `config`: the
/// same logits, loss and gradients (lib/peft/oracle_step_parity.h).
void check_against_peft(const std::string& method, const std::string& method_name, const nlohmann::json& config) {
  capaboost::testing::TempDir dir;
  capaboost::testing::run_oracle("peft_reference.py", {"layers", dir.path().string(), method});
  Backbone backbone = capaboost::testing::load_with_method(dir.file("base"), method_name, config);
  capaboost::testing::check_step_parity(*backbone.model, trainables_by_oracle_name(*backbone.model), dir.path().string(),
                                        "PEFT " + method, kPeftTolerance);
}

}  // namespace

TEST_CASE("LoRA on query and value: logits and every gradient match PEFT's LoraConfig, live", "[oracle][peft]") {
  check_against_peft("lora", "lora", {{"rank", 4}, {"alpha", 8}, {"lora_dropout", 0.0}});
}

TEST_CASE("LoRA on all seven projections of a Llama classifier: logits and every gradient match PEFT's, live",
          "[oracle][peft][llama]") {
  check_against_peft("llama-lora", "lora",
                     {{"rank", 4},
                      {"alpha", 8},
                      {"lora_dropout", 0.0},
                      {"targets", {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}}});
}

TEST_CASE("AdaLoRA: logits and every gradient match PEFT's AdaLoraConfig, live", "[oracle][peft]") {
  // PEFT's scale lora_alpha / (r + 1e-5) with lora_alpha 8 and r 4.
  check_against_peft("adalora", "adalora",
                     {{"initial_rank", 4}, {"target_rank", 2}, {"alpha", 8.0 * 4.0 / (4.0 + 1e-5)}, {"lora_dropout", 0.0}});
}

TEST_CASE("prefix tuning: logits and every gradient match PEFT's PrefixTuningConfig, live", "[oracle][peft]") {
  check_against_peft("prefix", "prefix", {{"prefix_length", 5}, {"prefix_mlp_hidden", 16}});
}

TEST_CASE("lora_init: peft draws A as PEFT does (Kaiming-uniform, a = sqrt(5)) and B as zeros, live",
          "[oracle][peft]") {
  constexpr int64_t kDraws = 64, kRank = 8, kWidth = 768;
  capaboost::testing::TempDir dir;
  capaboost::testing::run_oracle("peft_reference.py", {"init", dir.path().string(), std::to_string(kDraws)});
  const SafetensorsFile theirs(dir.file("init.safetensors"));
  const torch::Tensor peft_a = theirs.tensor("lora_A").to(torch::kFloat64).flatten();
  CHECK(theirs.tensor("lora_A").sizes() == torch::IntArrayRef({kDraws, kRank, kWidth}));
  CHECK(theirs.tensor("lora_B").abs().max().item<double>() == 0.0);

  std::vector<torch::Tensor> drawn;
  for (int64_t draw = 0; draw < kDraws; ++draw) {
    torch::manual_seed(static_cast<uint64_t>(draw));
    Lora lora(LoraOptions(kRank).init(LoraInit::kPeft), "query", kWidth, kWidth);
    CHECK(lora->B.abs().max().item<double>() == 0.0);
    drawn.push_back(lora->A.detach().to(torch::kFloat64).flatten());
  }
  const torch::Tensor our_a = torch::cat(drawn);

  // U(±1/√768): both reach the bound and stay inside it; std, mean and quantiles agree. With 393,216
  // draws each, the std's sampling error is about 0.1% and a quantile's about 0.005 of the bound.
  const double bound = 1.0 / std::sqrt(static_cast<double>(kWidth));
  for (const auto& [who, a] : {std::pair<const char*, torch::Tensor>{"PEFT", peft_a}, {"ours", our_a}}) {
    INFO(who << ": max |A| " << a.abs().max().item<double>() << ", bound " << bound);
    CHECK(a.abs().max().item<double>() <= bound * (1 + 1e-6));
    CHECK(a.abs().max().item<double>() >= bound * 0.999);
  }
  const double peft_std = peft_a.std().item<double>(), our_std = our_a.std().item<double>();
  INFO("std: PEFT " << peft_std << ", ours " << our_std << ", U(±bound) " << bound / std::sqrt(3.0));
  CHECK(std::abs(our_std - peft_std) <= 0.01 * peft_std);
  CHECK(std::abs(our_a.mean().item<double>() - peft_a.mean().item<double>()) <= 0.01 * bound);
  const auto levels = torch::linspace(0.05, 0.95, 19, torch::kFloat64);
  const double quantile_difference =
      (torch::quantile(our_a, levels) - torch::quantile(peft_a, levels)).abs().max().item<double>();
  INFO("largest quantile difference " << quantile_difference << " (bound " << bound << ")");
  CHECK(quantile_difference <= 0.02 * bound);
  std::cout << "oracle parity PEFT LoRA init: std PEFT " << peft_std << ", ours " << our_std
            << ", largest quantile difference / bound " << quantile_difference / bound << "\n";
}
