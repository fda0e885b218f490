// Every model architecture of the suite against Hugging Face transformers 4.30.2: each fixture folder
// under the golden directory is loaded with our config parser and safetensors loader, by the
// architecture its config.json names, and run on the stored inputs. The test names every folder it
// checks (and every one it cannot yet) in its output; new fixtures are picked up without code changes.

#include <torch/torch.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "checkpoint/config_json.h"
#include "checkpoint/safetensors.h"
#include "data/image_processor.h"
#include "models/deberta_v2_pretrained.h"
#include "models/roberta_pretrained.h"
#include "models/vit_pretrained.h"
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

bool golden_available() {
  if (fs::is_directory(golden_dir())) return true;
  WARN("skipped: golden directory "
       << golden_dir() << " is absent (set CAPABOOST_GOLDEN_DIR to the folder of Hugging Face fixtures)");
  return false;
}

// One forward pass as the fixtures record it.
struct GoldenRun {
  torch::Tensor logits;
  std::vector<torch::Tensor> hidden_states;
  std::vector<torch::Tensor> attentions;
};

// A loaded fixture model behind one interface, whatever its architecture.
struct GoldenModel {
  std::string architecture;
  std::string base_prefix;  // "roberta.", "deberta."
  int64_t layers = 0;
  LoadReport report;
  std::function<GoldenRun(const SafetensorsFile& io)> run;             // every output, padded batch
  std::function<torch::Tensor(const torch::Tensor& ids)> logits_of;    // one unpadded row
  std::function<torch::Tensor(const torch::Tensor& ids)> hidden_of;    // its last hidden state
  std::function<torch::Tensor(const torch::Tensor& logits, const torch::Tensor& labels)> loss;
  std::function<void(torch::ScalarType)> to;
  std::function<void(const std::string& dir)> save;
  std::function<GoldenModel(const std::string& dir)> reload;
  std::function<void(const SafetensorsFile& io)> extra_checks = nullptr;
};

torch::Tensor optional_input(const SafetensorsFile& io, const std::string& name) {
  return io.contains(name) ? io.tensor(name) : torch::Tensor();
}

void check_close(const std::string& what, const torch::Tensor& actual, const torch::Tensor& expected,
                 double tolerance = kTolerance) {
  INFO(what << ": shape " << actual.sizes() << " vs " << expected.sizes());
  REQUIRE(actual.sizes() == expected.sizes());
  const double diff = (actual.to(torch::kDouble) - expected.to(torch::kDouble)).abs().max().item<double>();
  INFO(what << ": max |ours - transformers| = " << diff);
  CHECK(diff <= tolerance);
}

GoldenModel roberta_model(const std::string& dir) {
  auto [model, report] = load_roberta_for_sequence_classification(dir);
  model->eval();
  GoldenModel golden;
  golden.architecture = "RoBERTa";
  golden.base_prefix = "roberta.";
  golden.layers = model->options.num_hidden_layers();
  golden.report = report;
  golden.run = [model](const SafetensorsFile& io) mutable {
    torch::NoGradGuard no_grad;
    auto out = model->forward(io.tensor("input_ids"), io.tensor("attention_mask"), optional_input(io, "token_type_ids"),
                              RobertaForwardOptions().output_hidden_states(true).output_attentions(true));
    return GoldenRun{out.logits, out.hidden_states, out.attentions};
  };
  golden.logits_of = [model](const torch::Tensor& ids) mutable { torch::NoGradGuard g; return model->forward(ids).logits; };
  golden.hidden_of = [model](const torch::Tensor& ids) mutable {
    torch::NoGradGuard g;
    return model->roberta->forward(ids).last_hidden_state;
  };
  golden.loss = [model](const torch::Tensor& logits, const torch::Tensor& labels) { return model->loss(logits, labels); };
  golden.to = [model](torch::ScalarType type) mutable { model->to(type); };
  golden.save = [model](const std::string& out) mutable { save_pretrained(*model, out); };
  golden.reload = roberta_model;
  // The default pass (first-token shortcut in the last layer) gives the same logits.
  golden.extra_checks = [model](const SafetensorsFile& io) mutable {
    torch::NoGradGuard no_grad;
    check_close("logits (first-token pass)", model->forward(io.tensor("input_ids"), io.tensor("attention_mask")).logits,
                io.tensor("logits"));
  };
  return golden;
}

GoldenModel deberta_v2_model(const std::string& dir) {
  auto [model, report] = load_deberta_v2_for_sequence_classification(dir);
  model->eval();
  GoldenModel golden;
  golden.architecture = "DeBERTa-v2";
  golden.base_prefix = "deberta.";
  golden.layers = model->options.num_hidden_layers();
  golden.report = report;
  golden.run = [model](const SafetensorsFile& io) mutable {
    torch::NoGradGuard no_grad;
    auto out = model->forward(io.tensor("input_ids"), io.tensor("attention_mask"), optional_input(io, "token_type_ids"),
                              DebertaV2ForwardOptions().output_hidden_states(true).output_attentions(true));
    return GoldenRun{out.logits, out.hidden_states, out.attentions};
  };
  golden.logits_of = [model](const torch::Tensor& ids) mutable { torch::NoGradGuard g; return model->forward(ids).logits; };
  golden.hidden_of = [model](const torch::Tensor& ids) mutable {
    torch::NoGradGuard g;
    return model->deberta->forward(ids).last_hidden_state;
  };
  golden.loss = [model](const torch::Tensor& logits, const torch::Tensor& labels) { return model->loss(logits, labels); };
  golden.to = [model](torch::ScalarType type) mutable { model->to(type); };
  golden.save = [model](const std::string& out) mutable { save_pretrained(*model, out); };
  golden.reload = deberta_v2_model;
  return golden;
}

GoldenModel vit_model(const std::string& dir) {
  auto [model, report] = load_vit_for_image_classification(dir);
  model->eval();
  GoldenModel golden;
  golden.architecture = "ViT";
  golden.base_prefix = "vit.";
  golden.layers = model->options.num_hidden_layers();
  golden.report = report;
  golden.run = [model](const SafetensorsFile& io) mutable {
    torch::NoGradGuard no_grad;
    const auto pixels = io.tensor("pixel_values").to(model->classifier->weight.scalar_type());  // the model's dtype
    auto out = model->forward(pixels, VitForwardOptions().output_hidden_states(true).output_attentions(true));
    // The fixture's last_hidden_state is after the final LayerNorm, hidden_states.L before it.
    out.hidden_states.push_back(model->vit->layernorm->forward(out.hidden_states.back()));
    return GoldenRun{out.logits, out.hidden_states, out.attentions};
  };
  golden.loss = [model](const torch::Tensor& logits, const torch::Tensor& labels) { return model->loss(logits, labels); };
  golden.to = [model](torch::ScalarType type) mutable { model->to(type); };
  golden.save = [model](const std::string& out) mutable { save_pretrained(*model, out); };
  golden.reload = vit_model;
  // The fixture's processor check: one 8-bit image through ViTImageProcessor (mean = std = 0.5), then the model.
  golden.extra_checks = [model](const SafetensorsFile& io) mutable {
    torch::NoGradGuard no_grad;
    const auto pixels = ImageProcessor(ImageProcessorOptions()).pixel_values(io.tensor("processor.image_uint8_hwc"));
    check_close("processor.pixel_values", pixels, io.tensor("processor.pixel_values"), 1e-6);
    check_close("processor.logits", model->forward(pixels).logits, io.tensor("processor.logits"));
  };
  return golden;
}

// model_type → loader of its sequence classifier; other model types are named as not checked yet.
std::optional<GoldenModel> load_golden(const fs::path& dir, std::string& model_type) {
  const auto config = ConfigJson::load((dir / "config.json").string());
  model_type = config.optional<std::string>("model_type", "?");
  if (model_type == "roberta") return roberta_model(dir.string());
  if (model_type == "deberta-v2") return deberta_v2_model(dir.string());
  if (model_type == "vit") return vit_model(dir.string());
  return std::nullopt;
}

std::vector<fs::path> fixture_folders() {
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(golden_dir())) {
    if (entry.is_directory() && fs::exists(entry.path() / "config.json")) found.push_back(entry.path());
  }
  std::sort(found.begin(), found.end());
  return found;
}

// Everything `dir`'s io.safetensors holds, against `model` loaded from `dir`.
void check_against_fixture(const fs::path& dir, GoldenModel& model) {
  CHECK(model.report.missing.empty());
  CHECK(model.report.unexpected.empty());
  for (const auto& name : model.report.ignored) {  // 4.30.2 saves the position_ids buffer; later versions do not
    CHECK_THAT(name, Catch::EndsWith("embeddings.position_ids") || Catch::EndsWith("embeddings.token_type_ids"));
  }
  const SafetensorsFile io((dir / "io.safetensors").string());

  const auto out = model.run(io);
  check_close("logits", out.logits, io.tensor("logits"));
  // Text encoders end in their last layer's output; ViT's run adds the output after its final
  // LayerNorm (the fixture's last_hidden_state) behind the L+1 hidden states.
  const bool final_norm = static_cast<int64_t>(out.hidden_states.size()) == model.layers + 2;
  REQUIRE(static_cast<int64_t>(out.hidden_states.size()) == model.layers + 1 + (final_norm ? 1 : 0));
  REQUIRE(static_cast<int64_t>(out.attentions.size()) == model.layers);
  check_close("last_hidden_state", out.hidden_states.back(), io.tensor("last_hidden_state"));
  for (int64_t i = 0; i <= model.layers; ++i) {
    check_close("hidden_states." + std::to_string(i), out.hidden_states[i], io.tensor("hidden_states." + std::to_string(i)));
  }
  for (int64_t i = 0; i < model.layers; ++i) {
    check_close("attentions." + std::to_string(i), out.attentions[i], io.tensor("attentions." + std::to_string(i)));
  }
  check_close("loss", model.loss(out.logits, io.tensor("labels")).reshape({1}), io.tensor("loss"));
  if (model.extra_checks) model.extra_checks(io);

  // Each row alone, padding removed.
  int64_t rows = 0;
  for (; io.contains("single." + std::to_string(rows) + ".input_ids"); ++rows) {
    const auto prefix = "single." + std::to_string(rows) + ".";
    const auto ids = io.tensor(prefix + "input_ids");
    check_close(prefix + "logits", model.logits_of(ids), io.tensor(prefix + "logits"));
    check_close(prefix + "last_hidden_state", model.hidden_of(ids), io.tensor(prefix + "last_hidden_state"));
  }
  if (io.contains("input_ids")) CHECK(rows == io.tensor("input_ids").size(0));

  // In float64 our result meets transformers' float64 run far below the float32 tolerance: the
  // computation is the same, not merely close.
  if (io.contains("logits_f64")) {
    model.to(torch::kFloat64);
    const auto f64 = model.run(io);
    check_close("logits_f64", f64.logits, io.tensor("logits_f64"), 1e-10);
    if (io.contains("last_hidden_state_f64")) {
      check_close("last_hidden_state_f64", f64.hidden_states.back(), io.tensor("last_hidden_state_f64"), 1e-10);
    }
  }
}

}  // namespace

TEST_CASE("every model matches transformers 4.30.2 on every golden fixture", "[models][golden]") {
  if (!golden_available()) return;
  std::vector<std::string> checked_types;
  for (const auto& dir : fixture_folders()) {
    INFO("fixture " << dir.string());
    std::string model_type;
    auto loaded = load_golden(dir, model_type);
    if (!loaded) {
      std::cout << "golden: " << dir.filename().string() << " (" << model_type << "): not checked, no "
                << model_type << " implementation yet\n";
      continue;
    }
    GoldenModel& model = *loaded;
    std::cout << "golden: " << dir.filename().string() << " (" << model.architecture << "): checked\n";
    checked_types.push_back(model_type);
    check_against_fixture(dir, model);
  }
  CHECK(std::count(checked_types.begin(), checked_types.end(), "roberta") >= 1);
  CHECK(std::count(checked_types.begin(), checked_types.end(), "deberta-v2") >= 1);
  CHECK(std::count(checked_types.begin(), checked_types.end(), "vit") >= 1);
}

TEST_CASE("save_pretrained round trip: bit-identical outputs, a file the reference reader accepts",
          "[models][golden][python]") {
  if (!golden_available()) return;
  for (const auto& dir : fixture_folders()) {
    std::string model_type;
    auto loaded = load_golden(dir, model_type);
    if (!loaded) continue;
    INFO("fixture " << dir.string());
    const SafetensorsFile io((dir / "io.safetensors").string());
    const auto before = loaded->run(io);

    capaboost::testing::TempDir out;
    loaded->save(out.path().string());
    auto reloaded = loaded->reload(out.path().string());
    const auto after = reloaded.run(io);
    CHECK(torch::equal(before.logits, after.logits));
    for (size_t i = 0; i < before.hidden_states.size(); ++i) CHECK(torch::equal(before.hidden_states[i], after.hidden_states[i]));

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
        (dir / "model.safetensors").string() + "' --ignore " + loaded->base_prefix + "embeddings.position_ids");
    INFO(result.output);
    CHECK(result.exit_code == 0);
  }
}

// The golden fixtures' inputs are shorter than half of their 256 position buckets, so they never reach
// the log-bucket branch. bench/deberta_v2_step.py (plain PyTorch, written separately from transformers'
// semantics) writes a fixture with 8 buckets and 60-token rows, right- and left-padded, which does.
TEST_CASE("DeBERTa matches the plain-PyTorch reference beyond half the position buckets", "[models][python]") {
  const auto python = capaboost::testing::reference_python();
  if (!python) {
    WARN("skipped: no system python3 with torch (Debian's python3-torch)");
    return;
  }
  capaboost::testing::TempDir dir;
  const std::string script = CAPABOOST_SOURCE_DIR "/bench/deberta_v2_step.py";
  const auto written = capaboost::testing::run_command("'" + *python + "' '" + script + "' --write-long '" +
                                                       dir.path().string() + "' --seed 3");
  INFO(written.output);
  REQUIRE(written.exit_code == 0);
  const auto config = ConfigJson::load(dir.file("config.json"));
  REQUIRE(config.required<int64_t>("position_buckets") * 4 <= SafetensorsFile(dir.file("io.safetensors")).tensor("input_ids").size(1));
  auto model = deberta_v2_model(dir.path().string());
  check_against_fixture(dir.path(), model);
}
