// The Llama family against Hugging Face transformers (the pinned oracle), generated live:
// tests/oracle/llama_reference.py builds small random Llama configurations (grouped-query and multi-head
// attention, tied and untied output embeddings, biases, a head width other than hidden/heads) with every
// parameter re-drawn, saves them with save_pretrained and records transformers' outputs. The suite loads
// each directory as a run does and must give, in float32 within 1e-5: the logits of right- and
// left-padded rows, the loss, every hidden state; in float64 the logits within 1e-9. Greedy decoding's
// building block, the key-value cache, must give the logits of a full forward pass token by token.

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>

#include "checkpoint/safetensors.h"
#include "models/llama_pretrained.h"
#include "support/oracle_python.h"
#include "support/temp_dir.h"

using namespace capaboost;
namespace fs = std::filesystem;

namespace {

constexpr double kLlamaFloat32Tolerance = 1e-5;
constexpr double kLlamaFloat64Tolerance = 1e-9;

/// The largest difference of each kind of output, printed after each case.
struct LlamaDifferences {
  std::map<std::string, double> largest;

  void check(const std::string& kind, const std::string& what, const torch::Tensor& actual,
             const torch::Tensor& expected, double tolerance) {
    INFO(what << ": shape " << actual.sizes() << " (ours) vs " << expected.sizes() << " (transformers)");
    REQUIRE(actual.sizes() == expected.sizes());
    const double difference = (actual.to(torch::kFloat64) - expected.to(torch::kFloat64)).abs().max().item<double>();
    INFO(what << ": max |ours - transformers| = " << difference << ", tolerance " << tolerance);
    CHECK(difference <= tolerance);
    largest[kind] = std::max(largest[kind], difference);
  }
};

/// `tensor` (B, T, …) with every padding position (mask 0) set to 0.
torch::Tensor real_positions_of(const torch::Tensor& tensor, const torch::Tensor& mask) {
  auto shape = mask.sizes().vec();
  shape.resize(static_cast<size_t>(tensor.dim()), 1);
  return tensor * mask.reshape(shape).to(tensor.scalar_type());
}

void check_language_model(const fs::path& directory, const SafetensorsFile& io, int64_t layers,
                          LlamaDifferences& differences) {
  auto [model, report] = load_llama_for_causal_lm(directory.string());
  model->eval();
  const auto ids = io.tensor("input_ids"), mask = io.tensor("attention_mask"), positions = io.tensor("position_ids");
  // The suite's default positions are the ones the oracle was given.
  auto out = model->model->forward(ids, mask, {}, nullptr, /*output_hidden_states=*/true);
  REQUIRE(static_cast<int64_t>(out.hidden_states.size()) == layers + 1);
  for (int64_t i = 0; i <= layers; ++i) {
    const auto name = "hidden_states." + std::to_string(i);
    differences.check("hidden states", name, out.hidden_states[static_cast<size_t>(i)], io.tensor(name),
                      kLlamaFloat32Tolerance);
  }
  const auto logits = model->project(out.last_hidden_state);
  differences.check("logits", "logits", logits, io.tensor("logits"), kLlamaFloat32Tolerance);
  differences.check("loss", "loss", causal_lm_loss(logits, io.tensor("labels")).reshape({1}), io.tensor("loss"),
                    kLlamaFloat32Tolerance);

  const auto left_mask = io.tensor("left.attention_mask");
  differences.check("logits", "left.logits",
                    real_positions_of(model->forward(io.tensor("left.input_ids"), left_mask), left_mask),
                    real_positions_of(io.tensor("left.logits"), left_mask), kLlamaFloat32Tolerance);

  // Token by token through the cache, every row at once (the mask grows with each step): the logits of
  // each real position equal the full pass's.
  LlamaCache cache;
  std::vector<torch::Tensor> steps;
  for (int64_t t = 0; t < ids.size(1); ++t) {
    steps.push_back(model->forward(ids.narrow(1, t, 1), mask.narrow(1, 0, t + 1), positions.narrow(1, t, 1), &cache));
  }
  CHECK(cache.length() == ids.size(1));
  differences.check("cached decoding", "logits, one token at a time", real_positions_of(torch::cat(steps, 1), mask),
                    real_positions_of(io.tensor("logits"), mask), kLlamaFloat32Tolerance);

  model->to(torch::kFloat64);
  differences.check("float64 logits", "logits_f64", model->forward(ids, mask, positions), io.tensor("logits_f64"),
                    kLlamaFloat64Tolerance);
}

void check_classifier(const fs::path& directory, const SafetensorsFile& io, int64_t num_labels,
                      LlamaDifferences& differences) {
  auto [model, report] = load_llama_for_sequence_classification(directory.string());
  CHECK(report.missing.empty());
  model->eval();
  REQUIRE(model->options.num_labels() == num_labels);
  Batch batch;
  batch.inputs = {{"input_ids", io.tensor("input_ids")}, {"attention_mask", io.tensor("attention_mask")}};
  batch.labels = io.tensor("labels");
  batch.examples = batch.labels.size(0);
  const auto logits = model->forward_batch(batch);
  differences.check("logits", "logits", logits, io.tensor("logits"), kLlamaFloat32Tolerance);
  differences.check("loss", "loss", model->batch_loss(logits, batch).reshape({1}), io.tensor("loss"),
                    kLlamaFloat32Tolerance);
  differences.check("logits", "left.logits",
                    model->forward(io.tensor("left.input_ids"), io.tensor("left.attention_mask")),
                    io.tensor("left.logits"), kLlamaFloat32Tolerance);
  auto hidden = model->model->forward(batch.input("input_ids"), batch.input("attention_mask"), {}, nullptr, true);
  for (size_t i = 0; i < hidden.hidden_states.size(); ++i) {
    const auto name = "hidden_states." + std::to_string(i);
    differences.check("hidden states", name, hidden.hidden_states[i], io.tensor(name), kLlamaFloat32Tolerance);
  }
  model->to(torch::kFloat64);
  differences.check("float64 logits", "logits_f64", model->forward(batch.input("input_ids"), batch.input("attention_mask")),
                    io.tensor("logits_f64"), kLlamaFloat64Tolerance);
}

}  // namespace

TEST_CASE("Llama language models and classifiers match transformers, with padding and the cache, live",
          "[oracle][models][llama]") {
  capaboost::testing::TempDir directory;
  capaboost::testing::run_oracle("llama_reference.py", {directory.path().string()});
  std::ifstream manifest_file(directory.path() / "cases.json");
  const auto manifest = nlohmann::json::parse(manifest_file);
  REQUIRE(manifest.at("cases").size() == 3);
  torch::NoGradGuard no_grad;
  for (const auto& entry : manifest.at("cases")) {
    const std::string name = entry.at("name");
    INFO("case " << name);
    const fs::path case_directory = directory.path() / name;
    const SafetensorsFile io((case_directory / "io.safetensors").string());
    LlamaDifferences differences;
    if (entry.at("head") == "causal_lm") {
      check_language_model(case_directory, io, entry.at("layers").get<int64_t>(), differences);
    } else {
      check_classifier(case_directory, io, entry.at("num_labels").get<int64_t>(), differences);
    }
    std::cout << "oracle parity " << name << ": max |ours - transformers|";
    for (const auto& [kind, difference] : differences.largest) std::cout << ", " << kind << " " << difference;
    std::cout << "\n";
  }
}
