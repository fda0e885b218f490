// Every model family of the suite (BERT, RoBERTa, DeBERTaV3-style DeBERTa-v2, ViT) against Hugging Face
// transformers (the pinned oracle, tests/oracle/), generated live: tests/oracle/model_reference.py builds
// small random configurations with every parameter re-drawn, saves them with save_pretrained, and
// records transformers' outputs on padded batches. The suite loads each directory the way a run does
// (load_checkpoint with the case's task head) and must give, in float32 within 1e-5: the task outputs
// (the logits of three classes, a regression score, start and end logits), the loss, every hidden state
// and attention map, the last hidden state of rows padded on the left, and each row run alone without
// its padding; in float64, the logits and the last hidden state within 1e-9 of transformers' float64
// run (the computation is the same, not merely close). DeBERTa's padding positions are left out
// (transformers 4.47 computes them otherwise than 4.30.2 and the suite: ComparedPositions). The largest
// differences are printed per case.

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <typeinfo>
#include <vector>

#include "backbones/backbone_registry.h"
#include "checkpoint/safetensors.h"
#include "models/bert_for_question_answering.h"
#include "models/bert_for_sequence_classification.h"
#include "models/deberta_v2.h"
#include "models/roberta.h"
#include "models/vit.h"
#include "support/oracle_python.h"
#include "support/temp_dir.h"

using namespace capaboost;
namespace fs = std::filesystem;

namespace {

constexpr double kFloat32Tolerance = 1e-5;
constexpr double kFloat64Tolerance = 1e-9;

/// One saved model of the oracle's cases.json.
struct OracleCase {
  std::string name;
  std::string model_type;
  TaskHead head;
  int64_t layers = 0;
};

std::vector<OracleCase> read_cases(const fs::path& directory) {
  std::ifstream file(directory / "cases.json");
  REQUIRE(file.good());
  const auto manifest = nlohmann::json::parse(file);
  std::vector<OracleCase> cases;
  for (const auto& entry : manifest.at("cases")) {
    const auto kind = entry.at("head") == "span" ? TaskHead::Kind::kSpan : TaskHead::Kind::kSequenceClassification;
    cases.push_back({entry.at("name"), entry.at("model_type"), TaskHead{kind, entry.at("num_labels").get<int64_t>()},
                     entry.at("layers").get<int64_t>()});
  }
  return cases;
}

/// The largest difference of each kind of output, for the printed summary.
struct Differences {
  std::map<std::string, double> largest;
  void note(const std::string& kind, double difference) {
    double& value = largest[kind];  // 0 when new
    value = std::max(value, difference);
  }
};

void check_close(Differences& differences, const std::string& kind, const std::string& what,
                 const torch::Tensor& actual, const torch::Tensor& expected, double tolerance) {
  INFO(what << ": shape " << actual.sizes() << " (ours) vs " << expected.sizes() << " (transformers)");
  REQUIRE(actual.sizes() == expected.sizes());
  const double difference =
      (actual.to(torch::kFloat64) - expected.to(torch::kFloat64)).abs().max().item<double>();
  INFO(what << ": max |ours - transformers| = " << difference << ", tolerance " << tolerance);
  CHECK(difference <= tolerance);
  differences.note(kind, difference);
}

/// The batch of the inputs (and labels) stored under `prefix` in `io`, as the suite's task data hold them.
Batch batch_from(const SafetensorsFile& io, const std::string& prefix = "") {
  Batch batch;
  for (const char* name : {"input_ids", "attention_mask", "token_type_ids", "pixel_values", "start_positions",
                           "end_positions"}) {
    if (io.contains(prefix + name)) batch.inputs[name] = io.tensor(prefix + name);
  }
  if (io.contains(prefix + "labels")) batch.labels = io.tensor(prefix + "labels");
  batch.examples = batch.inputs.begin()->second.size(0);
  return batch;
}

/// What a forward pass computes on the way to the task outputs.
struct Internals {
  std::vector<torch::Tensor> hidden_states;  ///< L+1: the embeddings, then every layer
  std::vector<torch::Tensor> attentions;     ///< L softmax maps
  torch::Tensor last_hidden_state;           ///< the encoder's output (ViT: after its final LayerNorm)
};

/// The hidden states and attentions of `model` on `batch`, through its encoder. The task model
/// interface shows outputs only, so this is the one place that names the model classes.
Internals internals_of(TaskModelImpl& model, const Batch& batch) {
  const auto text = [&batch](auto& encoder, auto options) {
    auto out = encoder->forward(batch.input("input_ids"), batch.optional_input("attention_mask"),
                                batch.optional_input("token_type_ids"),
                                options.output_hidden_states(true).output_attentions(true));
    return Internals{out.hidden_states, out.attentions, out.last_hidden_state};
  };
  if (auto* m = dynamic_cast<BertForSequenceClassificationImpl*>(&model)) return text(m->bert, BertForwardOptions());
  if (auto* m = dynamic_cast<RobertaForSequenceClassificationImpl*>(&model)) return text(m->roberta, BertForwardOptions());
  if (auto* m = dynamic_cast<BertForQuestionAnsweringImpl*>(&model)) return text(m->base, BertForwardOptions());
  if (auto* m = dynamic_cast<DebertaV2ForSequenceClassificationImpl*>(&model)) {
    return text(m->deberta, DebertaV2ForwardOptions());
  }
  if (auto* m = dynamic_cast<DebertaV2ForQuestionAnsweringImpl*>(&model)) {
    return text(m->deberta, DebertaV2ForwardOptions());
  }
  if (auto* m = dynamic_cast<VitForImageClassificationImpl*>(&model)) {
    auto out = m->vit->forward(batch.input("pixel_values"),
                               VitForwardOptions().output_hidden_states(true).output_attentions(true));
    return Internals{out.hidden_states, out.attentions, out.last_hidden_state};
  }
  FAIL("internals_of: no encoder access for the task model " << typeid(model).name()
                                                              << "; add its family to internals_of");
  return {};
}

/// `batch` with its floating-point inputs (pixel values) in `type`.
Batch converted(Batch batch, torch::ScalarType type) {
  for (auto& [name, tensor] : batch.inputs) {
    if (tensor.is_floating_point()) tensor = tensor.to(type);
  }
  return batch;
}

/// The positions a check compares. transformers 4.47 gives DeBERTa-v2's padding positions, as
/// queries, a uniform attention over every key (the masked_fill meant to zero them after the softmax is
/// not in place: huggingface/transformers#35162; PR #35182 removed the line and kept the behaviour),
/// where 4.30.2's XSoftmax, DeBERTa's own code and the suite attend from them to nothing. Real positions
/// never read padding positions (DeBERTa's rows are right-padded, so its pooled first token is real), so
/// only what is computed at padding positions differs: for DeBERTa the checks compare real positions,
/// and leave out the span loss, whose softmax runs over every position.
struct ComparedPositions {
  torch::Tensor real;  ///< (B, T) attention mask; undefined: every position is compared

  /// `tensor` with the positions along `dim` that are not compared set to 0; unchanged without a
  /// position dimension (dim < 0) or when every position is compared.
  torch::Tensor operator()(const torch::Tensor& tensor, int64_t dim) const {
    if (!real.defined() || dim < 0) return tensor;
    std::vector<int64_t> shape(static_cast<size_t>(tensor.dim()), 1);
    shape[0] = tensor.size(0);
    shape[static_cast<size_t>(dim)] = tensor.size(dim);
    return tensor * real.reshape(shape).to(tensor.scalar_type());
  }
};

/// One saved case: loaded by load_checkpoint, against everything io.safetensors holds.
void check_case(const fs::path& directory, const OracleCase& oracle_case) {
  INFO("case " << oracle_case.name << " (" << directory.string() << ")");
  Backbone backbone = load_checkpoint(directory.string(), oracle_case.head);
  TaskModelImpl& model = *backbone.model;
  model.eval();
  torch::NoGradGuard no_grad;
  const SafetensorsFile io((directory / "io.safetensors").string());
  Differences differences;

  const Batch batch = batch_from(io);
  const ComparedPositions positions{oracle_case.model_type == "deberta-v2" ? batch.optional_input("attention_mask")
                                                                           : torch::Tensor()};
  const bool span = oracle_case.head.kind == TaskHead::Kind::kSpan;
  const int64_t output_positions = span ? 1 : -1;  // (B, T, 2) start and end logits; (B, num_labels)
  const torch::Tensor outputs = model.forward_batch(batch);
  check_close(differences, "outputs", "outputs", positions(outputs, output_positions),
              positions(io.tensor("logits"), output_positions), kFloat32Tolerance);
  if (!(span && positions.real.defined())) {
    check_close(differences, "loss", "loss", model.batch_loss(outputs, batch).reshape({1}), io.tensor("loss"),
                kFloat32Tolerance);
  }

  const Internals internals = internals_of(model, batch);
  REQUIRE(static_cast<int64_t>(internals.hidden_states.size()) == oracle_case.layers + 1);
  REQUIRE(static_cast<int64_t>(internals.attentions.size()) == oracle_case.layers);
  for (int64_t i = 0; i <= oracle_case.layers; ++i) {
    const std::string name = "hidden_states." + std::to_string(i);
    check_close(differences, "hidden states", name, positions(internals.hidden_states[i], 1),
                positions(io.tensor(name), 1), kFloat32Tolerance);
  }
  for (int64_t i = 0; i < oracle_case.layers; ++i) {  // (B, H, T queries, T keys)
    const std::string name = "attentions." + std::to_string(i);
    check_close(differences, "attentions", name, positions(internals.attentions[i], 2), positions(io.tensor(name), 2),
                kFloat32Tolerance);
  }
  check_close(differences, "hidden states", "last_hidden_state", positions(internals.last_hidden_state, 1),
              positions(io.tensor("last_hidden_state"), 1), kFloat32Tolerance);

  if (io.contains("left.input_ids")) {  // every row padded on the left
    const Batch left = batch_from(io, "left.");
    const ComparedPositions left_positions{positions.real.defined() ? left.input("attention_mask") : torch::Tensor()};
    check_close(differences, "hidden states", "left.last_hidden_state",
                left_positions(internals_of(model, left).last_hidden_state, 1),
                left_positions(io.tensor("left.last_hidden_state"), 1), kFloat32Tolerance);
  }

  int64_t rows = 0;
  for (; io.contains("single." + std::to_string(rows) + ".logits"); ++rows) {
    const std::string prefix = "single." + std::to_string(rows) + ".";
    check_close(differences, "rows alone", prefix + "logits", model.forward_batch(batch_from(io, prefix)),
                io.tensor(prefix + "logits"), kFloat32Tolerance);
  }
  if (batch.inputs.count("input_ids")) CHECK(rows == batch.examples);

  model.to(torch::kFloat64);
  const Batch batch64 = converted(batch, torch::kFloat64);
  check_close(differences, "float64 outputs", "logits_f64", positions(model.forward_batch(batch64), output_positions),
              positions(io.tensor("logits_f64"), output_positions), kFloat64Tolerance);
  check_close(differences, "float64 last hidden state", "last_hidden_state_f64",
              positions(internals_of(model, batch64).last_hidden_state, 1),
              positions(io.tensor("last_hidden_state_f64"), 1), kFloat64Tolerance);

  std::cout << "oracle parity " << oracle_case.name << ": max |ours - transformers|";
  for (const auto& [kind, difference] : differences.largest) std::cout << ", " << kind << " " << difference;
  std::cout << "\n";
}

/// Runs the oracle for `family` (a model_reference.py family) and checks each of its cases, which must
/// be `heads` task heads of model_type `model_type`.
void check_family(const std::string& family, const std::string& model_type, size_t heads) {
  capaboost::testing::TempDir directory;
  capaboost::testing::run_oracle("model_reference.py", {directory.path().string(), family});
  const auto cases = read_cases(directory.path());
  REQUIRE(cases.size() == heads);
  for (const auto& oracle_case : cases) {
    CHECK(oracle_case.model_type == model_type);
    check_case(directory.path() / oracle_case.name, oracle_case);
  }
}

}  // namespace

TEST_CASE("RoBERTa's classifier, regression and span heads match transformers, live", "[oracle][models]") {
  check_family("roberta", "roberta", 3);
}

TEST_CASE("DeBERTaV3-style models (relative attention, log buckets) match transformers, live", "[oracle][models]") {
  check_family("deberta-v2", "deberta-v2", 3);
}

TEST_CASE("ViT's classifier and regression heads match transformers, live", "[oracle][models]") {
  check_family("vit", "vit", 2);
}

TEST_CASE("BERT's classifier (sentence pairs), regression and span heads match transformers, live",
          "[oracle][models]") {
  check_family("bert", "bert", 3);
}
