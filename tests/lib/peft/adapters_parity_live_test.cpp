// The suite's bottleneck adapters against AdapterHub's `adapters` (adapter-transformers, the library the
// paper builds on; pinned in tests/oracle/requirements.txt), generated live by
// tests/oracle/adapters_reference.py on the random RoBERTa classifier of the PEFT parity test: the
// library adds its configuration, re-draws every trainable tensor and records, in training mode without
// dropout, the logits of a padded batch and the gradient of the cross-entropy with respect to every
// trainable tensor. The suite loads the same checkpoint, attaches its `adapter` method through the
// registry as a run does, takes the library's values and must give the same logits, loss and gradients.
//
// The two placements the paper's adapters take:
// - Pfeiffer (PAdapter, SeqBnConfig: original_ln_before, residual_before_ln, original_ln_after) is
//   `placement: after_layer_norm` on each layer's feed-forward block: LN(s + A(LN(s))), s = h + x.
// - Houlsby (HAdapter, DoubleSeqBnConfig: adapters after the attention and the feed-forward blocks,
//   before their LayerNorm, swish) is the default placement on `targets: [output.dense]`:
//   LN(h + A(h) + x). The library applies the block's dropout before its adapter where the suite's
//   adapter reads the projection before it; without dropout, as here, the two are the same function.

#include <catch2/catch.hpp>

#include <iostream>
#include <map>
#include <string>

#include "backbones/backbone_registry.h"
#include "checkpoint/safetensors.h"
#include "peft/adapter.h"
#include "peft/method_registry.h"
#include "sites/site_registry.h"
#include "support/oracle_python.h"
#include "support/temp_dir.h"
#include "train/trainable_selection.h"

using namespace capaboost;

namespace {

constexpr double kAdaptersTolerance = 1e-5;

/// Every trainable tensor of `model` by the oracle's names: "<block>.adapter.<tensor>" for an adapter on a
/// residual block or on its output projection (<block>.dense), the head's by their own.
std::map<std::string, torch::Tensor> adapter_tensors_by_oracle_name(TaskModelImpl& model) {
  std::map<std::string, torch::Tensor> named;
  for (const auto& [name, tuner] : find_tuners(model)) {
    auto* adapter = dynamic_cast<AdapterImpl*>(tuner.get());
    REQUIRE(adapter != nullptr);
    std::string block = name.substr(0, name.size() - std::string(".adapter").size());
    const std::string projection = ".dense";
    if (block.size() > projection.size() && block.compare(block.size() - projection.size(), projection.size(), projection) == 0) {
      block.resize(block.size() - projection.size());
    }
    named[block + ".adapter.down"] = adapter->down;
    named[block + ".adapter.down_bias"] = adapter->down_bias;
    named[block + ".adapter.up"] = adapter->up;
    named[block + ".adapter.up_bias"] = adapter->up_bias;
  }
  for (const auto& item : model.named_parameters()) {
    for (const auto& prefix : model.head_prefixes()) {
      if (item.key().rfind(prefix, 0) == 0) named[item.key()] = item.value();
    }
  }
  return named;
}

/// The library's `configuration` (an adapters_reference.py one) against the suite's `adapter` method with
/// `config`: the same trainable tensors, logits, loss and gradients; prints the largest differences.
void check_against_adapters(const std::string& configuration, const nlohmann::json& config) {
  capaboost::testing::TempDir dir;
  capaboost::testing::run_oracle("adapters_reference.py", {dir.path().string(), configuration});

  Backbone backbone = load_checkpoint(dir.file("base"), TaskHead{TaskHead::Kind::kSequenceClassification, 3});
  TaskModelImpl& model = *backbone.model;
  const MethodSpec& spec = find_method("adapter");
  spec.attach(model, resolve_or_throw(spec.parameters, config, "method adapter"));
  select_trainable_parameters(model, spec.trains_backbone_parameter, model.head_prefixes());

  const SafetensorsFile weights(dir.file("weights.safetensors"));
  const auto ours = adapter_tensors_by_oracle_name(model);
  std::vector<std::string> names;
  for (const auto& [name, tensor] : ours) names.push_back(name);
  CHECK(names == weights.names());  // the same adapters at the same blocks, and the head
  int64_t trainable = 0;
  for (const auto& parameter : model.parameters()) trainable += parameter.requires_grad() ? 1 : 0;
  CHECK(trainable == static_cast<int64_t>(ours.size()));
  {
    torch::NoGradGuard no_grad;
    for (const auto& [name, tensor] : ours) {
      INFO("tensor " << name);
      REQUIRE(weights.contains(name));
      REQUIRE(weights.tensor(name).sizes() == tensor.sizes());
      tensor.copy_(weights.tensor(name));
    }
  }

  const SafetensorsFile io(dir.file("io.safetensors"));
  Batch batch;
  batch.inputs = {{"input_ids", io.tensor("input_ids")}, {"attention_mask", io.tensor("attention_mask")}};
  batch.labels = io.tensor("labels");
  batch.examples = batch.labels.size(0);
  model.train();
  const torch::Tensor logits = model.forward_batch(batch);
  const torch::Tensor loss = model.batch_loss(logits, batch);
  loss.backward();

  const auto difference = [](const torch::Tensor& a, const torch::Tensor& b) {
    return (a.detach().to(torch::kFloat64) - b.to(torch::kFloat64)).abs().max().item<double>();
  };
  REQUIRE(logits.sizes() == io.tensor("logits").sizes());
  const double logits_difference = difference(logits, io.tensor("logits"));
  CHECK(logits_difference <= kAdaptersTolerance);
  CHECK(difference(loss.reshape({1}), io.tensor("loss")) <= kAdaptersTolerance);
  double largest = 0;
  for (const auto& [name, tensor] : ours) {
    INFO("gradient of " << name);
    REQUIRE(tensor.grad().defined());
    const auto expected = io.tensor("grad." + name);
    REQUIRE(tensor.grad().sizes() == expected.sizes());
    CHECK(expected.abs().max().item<double>() > 0);  // every tensor takes part in the library's computation
    const double gradient_difference = difference(tensor.grad(), expected);
    CHECK(gradient_difference <= kAdaptersTolerance);
    largest = std::max(largest, gradient_difference);
  }
  std::cout << "oracle parity adapters " << configuration << ": max |ours - adapters| logits " << logits_difference
            << ", gradients " << largest << " over " << ours.size() << " trainable tensors\n";
}

}  // namespace

TEST_CASE("PAdapter after the FFN and its LayerNorm: logits and every gradient match adapters' SeqBnConfig, live",
          "[oracle][adapters]") {
  check_against_adapters("pfeiffer", {{"bottleneck", 8}, {"placement", "after_layer_norm"}});
}

TEST_CASE("HAdapter after the attention and FFN projections: logits and every gradient match adapters' DoubleSeqBnConfig, live",
          "[oracle][adapters]") {
  check_against_adapters("houlsby", {{"bottleneck", 8},
                                     {"activation", "swish"},
                                     {"targets", {"output.dense"}},
                                     {"target_regex", ""}});
}
