#pragma once
// One training step of a PEFT method against a Python oracle's (tests/oracle/peft_reference.py `layers`,
// tests/oracle/adapters_reference.py): the oracle saved a random RoBERTa classifier in <dir>/base, the
// value of every trainable tensor (<dir>/weights.safetensors, by the oracle's neutral names) and a batch
// with its logits, loss and the gradient of every trainable tensor (<dir>/io.safetensors), in training
// mode without dropout. The suite attaches the method to the same checkpoint as a run does, takes the
// oracle's values and must give the same logits, loss and gradients.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "backbones/backbone_registry.h"
#include "checkpoint/safetensors.h"
#include "peft/method_registry.h"
#include "train/trainable_selection.h"

namespace capaboost::testing {

/// The oracle's classifier in `base` (three labels) with `method_name` attached as `config` says and its
/// trainable parameters selected, as a run does.
inline Backbone load_with_method(const std::string& base, const std::string& method_name, const nlohmann::json& config) {
  Backbone backbone = load_checkpoint(base, TaskHead{TaskHead::Kind::kSequenceClassification, 3});
  const MethodSpec& spec = find_method(method_name);
  spec.attach(*backbone.model, resolve_or_throw(spec.parameters, config, "method " + method_name));
  select_trainable_parameters(*backbone.model, spec.trains_backbone_parameter, backbone.model->head_prefixes());
  return backbone;
}

/// The task head's parameters by their own names (the oracles train the head too: PEFT as
/// modules_to_save, adapters as the part train_adapter leaves trainable).
inline std::map<std::string, torch::Tensor> head_tensors(TaskModelImpl& model) {
  std::map<std::string, torch::Tensor> named;
  for (const auto& item : model.named_parameters()) {
    for (const auto& prefix : model.head_prefixes()) {
      if (item.key().rfind(prefix, 0) == 0) named[item.key()] = item.value();
    }
  }
  return named;
}

/// `ours` (every trainable tensor of `model`, by the oracle's names) takes the values of `dir`'s
/// weights.safetensors; one training step on its batch must match the oracle's logits, loss and every
/// gradient within `tolerance`. Prints "oracle parity <label>: …" with the largest differences.
inline void check_step_parity(TaskModelImpl& model, const std::map<std::string, torch::Tensor>& ours,
                              const std::string& dir, const std::string& label, double tolerance) {
  // The oracle's values for every trainable tensor, and nothing trainable left out.
  const SafetensorsFile weights(dir + "/weights.safetensors");
  std::vector<std::string> names;
  for (const auto& [name, tensor] : ours) names.push_back(name);
  CHECK(names == weights.names());
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

  const SafetensorsFile io(dir + "/io.safetensors");
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
  CHECK(logits_difference <= tolerance);
  CHECK(difference(loss.reshape({1}), io.tensor("loss")) <= tolerance);
  double largest = 0;
  for (const auto& [name, tensor] : ours) {
    INFO("gradient of " << name);
    REQUIRE(tensor.grad().defined());
    const auto expected = io.tensor("grad." + name);
    REQUIRE(tensor.grad().sizes() == expected.sizes());
    CHECK(expected.abs().max().item<double>() > 0);  // every tensor takes part in the oracle's computation
    const double gradient_difference = difference(tensor.grad(), expected);
    CHECK(gradient_difference <= tolerance);
    largest = std::max(largest, gradient_difference);
  }
  std::cout << "oracle parity " << label << ": max |ours - oracle| logits " << logits_difference << ", gradients "
            << largest << " over " << ours.size() << " trainable tensors\n";
}

}  // namespace capaboost::testing
