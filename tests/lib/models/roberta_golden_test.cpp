// RoBERTa against Hugging Face transformers 4.30.2: every fixture folder under the golden directory
// whose config.json names a supported architecture is loaded with our config parser and safetensors
// loader and run on the stored inputs; new fixtures are picked up without code changes.

#include <torch/torch.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "checkpoint/config_json.h"
#include "checkpoint/safetensors.h"
#include "models/roberta_pretrained.h"
#include "support/reference_python.h"
#include "support/temp_dir.h"

using namespace capaboost;
namespace fs = std::filesystem;

namespace {

constexpr double kTolerance =
    1e-5;  // the fixtures' suggested float32 tolerance (observed |f32 - f64| ≤ 6e-7)

fs::path golden_dir() {
  if (const char* dir = std::getenv("CAPABOOST_GOLDEN_DIR")) return dir;
  if (const char* shared = std::getenv("CAPABOOST_SHARED_DIR")) return fs::path(shared) / "golden";
  return fs::path(CAPABOOST_SOURCE_DIR "/../shared/golden");
}

// Fixture folders with a RoBERTa classifier; other architectures belong to other tests.
std::vector<fs::path> roberta_fixtures() {
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(golden_dir())) {
    const auto config_path = entry.path() / "config.json";
    if (!entry.is_directory() || !fs::exists(config_path)) continue;
    const auto config = ConfigJson::load(config_path.string());
    const auto& architectures = config.json().value("architectures", nlohmann::json::array());
    const bool classifier = std::find(architectures.begin(), architectures.end(),
                                      "RobertaForSequenceClassification") != architectures.end();
    if (classifier && config.optional<std::string>("model_type", "roberta") == "roberta") {
      found.push_back(entry.path());
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

bool golden_available() {
  if (fs::is_directory(golden_dir())) return true;
  WARN("skipped: golden directory "
       << golden_dir() << " is absent (set CAPABOOST_GOLDEN_DIR to the folder of Hugging Face fixtures)");
  return false;
}

double max_diff(const torch::Tensor& a, const torch::Tensor& b) {
  REQUIRE(a.sizes() == b.sizes());
  return (a.to(torch::kDouble) - b.to(torch::kDouble)).abs().max().item<double>();
}

void check_close(const std::string& what, const torch::Tensor& actual, const torch::Tensor& expected,
                 double tolerance = kTolerance) {
  INFO(what << ": shape " << actual.sizes() << " vs " << expected.sizes());
  const double diff = max_diff(actual, expected);
  INFO(what << ": max |ours - transformers| = " << diff);
  CHECK(diff <= tolerance);
}

SequenceClassifierOutput run_all(RobertaForSequenceClassification& model, const SafetensorsFile& io) {
  torch::NoGradGuard no_grad;
  const auto types = io.contains("token_type_ids") ? io.tensor("token_type_ids") : torch::Tensor();
  return model->forward(io.tensor("input_ids"), io.tensor("attention_mask"), types,
                        RobertaForwardOptions().output_hidden_states(true).output_attentions(true));
}

}  // namespace

TEST_CASE("RoBERTa matches transformers 4.30.2 on every golden fixture", "[roberta][golden]") {
  if (!golden_available()) return;
  const auto fixtures = roberta_fixtures();
  REQUIRE_FALSE(fixtures.empty());
  for (const auto& dir : fixtures) {
    INFO("fixture " << dir.string());
    auto [model, report] = load_roberta_for_sequence_classification(dir.string());
    CHECK(report.missing.empty());
    CHECK(report.unexpected.empty());
    for (const auto& name : report.ignored) {  // 4.30.2 saves the position_ids buffer; later versions do not
      CHECK_THAT(name,
                 Catch::EndsWith("embeddings.position_ids") || Catch::EndsWith("embeddings.token_type_ids"));
    }
    model->eval();
    const SafetensorsFile io((dir / "io.safetensors").string());

    const auto out = run_all(model, io);
    const int64_t layers = model->options.num_hidden_layers();
    check_close("logits", out.logits, io.tensor("logits"));
    REQUIRE(static_cast<int64_t>(out.hidden_states.size()) == layers + 1);
    REQUIRE(static_cast<int64_t>(out.attentions.size()) == layers);
    check_close("last_hidden_state", out.hidden_states.back(), io.tensor("last_hidden_state"));
    for (int64_t i = 0; i <= layers; ++i) {
      check_close("hidden_states." + std::to_string(i), out.hidden_states[i],
                  io.tensor("hidden_states." + std::to_string(i)));
    }
    for (int64_t i = 0; i < layers; ++i) {
      check_close("attentions." + std::to_string(i), out.attentions[i],
                  io.tensor("attentions." + std::to_string(i)));
    }
    check_close("loss", model->loss(out.logits, io.tensor("labels")).reshape({1}), io.tensor("loss"));

    // The default pass (first-token shortcut in the last layer) gives the same logits.
    {
      torch::NoGradGuard no_grad;
      check_close("logits (first-token pass)",
                  model->forward(io.tensor("input_ids"), io.tensor("attention_mask")).logits,
                  io.tensor("logits"));
    }
    // Each row alone, padding removed.
    int64_t rows = 0;
    for (; io.contains("single." + std::to_string(rows) + ".input_ids"); ++rows) {
      const auto prefix = "single." + std::to_string(rows) + ".";
      torch::NoGradGuard no_grad;
      const auto ids = io.tensor(prefix + "input_ids");
      check_close(prefix + "logits", model->forward(ids).logits, io.tensor(prefix + "logits"));
      check_close(prefix + "last_hidden_state", model->roberta->forward(ids).last_hidden_state,
                  io.tensor(prefix + "last_hidden_state"));
    }
    CHECK(rows == io.tensor("input_ids").size(0));

    // In float64 our result meets transformers' float64 run far below the float32 tolerance: the
    // computation is the same, not merely close.
    if (io.contains("logits_f64")) {
      model->to(torch::kFloat64);
      const auto f64 = run_all(model, io);
      check_close("logits_f64", f64.logits, io.tensor("logits_f64"), 1e-10);
      check_close("last_hidden_state_f64", f64.hidden_states.back(), io.tensor("last_hidden_state_f64"),
                  1e-10);
    }
  }
}

TEST_CASE("RoBERTa save_pretrained round trip: bit-identical outputs, a file the reference reader accepts",
          "[roberta][golden][python]") {
  if (!golden_available()) return;
  const auto fixtures = roberta_fixtures();
  REQUIRE_FALSE(fixtures.empty());
  for (const auto& dir : fixtures) {
    INFO("fixture " << dir.string());
    auto loaded = load_roberta_for_sequence_classification(dir.string()).model;
    loaded->eval();
    const SafetensorsFile io((dir / "io.safetensors").string());
    const auto before = run_all(loaded, io);

    capaboost::testing::TempDir out;
    save_pretrained(*loaded, out.path().string());
    auto reloaded = load_roberta_for_sequence_classification(out.path().string()).model;
    reloaded->eval();
    const auto after = run_all(reloaded, io);
    CHECK(torch::equal(before.logits, after.logits));
    for (size_t i = 0; i < before.hidden_states.size(); ++i) {
      CHECK(torch::equal(before.hidden_states[i], after.hidden_states[i]));
    }
    CHECK(reloaded->options.num_labels() == loaded->options.num_labels());
    CHECK(reloaded->options.layer_norm_eps() == loaded->options.layer_norm_eps());

    // Independent check (pure json + struct + torch) that our file has HF's layout and the same tensors as
    // the file transformers wrote, except the position_ids buffer we do not keep.
    const auto python = capaboost::testing::reference_python();
    if (!python) {
      WARN("skipped the Python reader check: no system python3 with torch (Debian's python3-torch)");
      continue;
    }
    const std::string checker = CAPABOOST_SOURCE_DIR "/tests/lib/checkpoint/safetensors_reference_check.py";
    const auto result = capaboost::testing::run_command(
        "'" + *python + "' '" + checker + "' '" + out.file("model.safetensors") + "' '" +
        (dir / "model.safetensors").string() + "' --ignore roberta.embeddings.position_ids");
    INFO(result.output);
    CHECK(result.exit_code == 0);
  }
}
