// The hand-made golden fixtures under ../shared/golden (made once with transformers 4.30.2) for what the
// live parity tests (model_parity_live_test.cpp, against the pinned transformers of the oracle venv) do
// not cover:
// - checkpoints as transformers 4.30.2 wrote them: their files carry the `embeddings.position_ids`
//   buffer that later versions no longer save; each fixture must load with that buffer reported as
//   ignored and nothing missing or unexpected, and give the logits 4.30.2 computed (so the suite agrees
//   with both versions where they are compared);
// - ViT's image processor (ViTImageProcessor needs Pillow, which the oracle venv does not carry);
// - save_pretrained: our files must reload bit-identically and hold the tensors transformers wrote.
// Hidden states, attentions, losses, unpadded rows and float64 runs are compared live. The test names
// every folder it checks (and every one it cannot yet); new fixtures are picked up without code changes.

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
#include "support/shared_dir.h"

using namespace capaboost;
namespace fs = std::filesystem;

namespace {

constexpr double kGoldenTolerance =
    1e-5;  // the fixtures' suggested float32 tolerance (observed |f32 - f64| ≤ 6e-7)

fs::path golden_dir() {
  if (const char* dir = std::getenv("CAPABOOST_GOLDEN_DIR")) return dir;
  return capaboost::testing::shared_dir() / "golden";
}

bool golden_available() {
  if (fs::is_directory(golden_dir())) return true;
  WARN("skipped: golden directory "
       << golden_dir() << " is absent (set CAPABOOST_GOLDEN_DIR to the folder of Hugging Face fixtures)");
  return false;
}

// A loaded fixture model behind the task model interface, whatever its architecture.
struct GoldenModel {
  std::string architecture;
  std::string base_prefix;  // "roberta.", "deberta."
  LoadReport report;
  TaskModelPtr model;
  std::function<void(const std::string& dir)> save;
  std::function<GoldenModel(const std::string& dir)> reload;
  std::function<void(const SafetensorsFile& io)> extra_checks = nullptr;
};

void check_close(const std::string& what, const torch::Tensor& actual, const torch::Tensor& expected,
                 double tolerance = kGoldenTolerance) {
  INFO(what << ": shape " << actual.sizes() << " vs " << expected.sizes());
  REQUIRE(actual.sizes() == expected.sizes());
  const double diff = (actual.to(torch::kDouble) - expected.to(torch::kDouble)).abs().max().item<double>();
  INFO(what << ": max |ours - transformers| = " << diff);
  CHECK(diff <= tolerance);
}

// The fixture's inputs as a batch, and the model's eval-mode outputs on it.
torch::Tensor golden_logits(TaskModelImpl& model, const SafetensorsFile& io) {
  Batch batch;
  for (const char* name : {"input_ids", "attention_mask", "token_type_ids", "pixel_values"}) {
    if (io.contains(name)) batch.inputs[name] = io.tensor(name);
  }
  batch.examples = batch.inputs.begin()->second.size(0);
  model.eval();
  torch::NoGradGuard no_grad;
  return model.forward_batch(batch);
}

template <typename Loaded>
GoldenModel golden_model(const std::string& architecture, const std::string& base_prefix, Loaded loaded,
                         std::function<GoldenModel(const std::string& dir)> reload) {
  GoldenModel golden;
  golden.architecture = architecture;
  golden.base_prefix = base_prefix;
  golden.report = loaded.report;
  golden.model = loaded.model.ptr();
  golden.save = [model = loaded.model](const std::string& out) mutable { save_pretrained(*model, out); };
  golden.reload = std::move(reload);
  return golden;
}

GoldenModel roberta_model(const std::string& dir) {
  return golden_model("RoBERTa", "roberta.", load_roberta_for_sequence_classification(dir), roberta_model);
}

GoldenModel deberta_v2_model(const std::string& dir) {
  return golden_model("DeBERTa-v2", "deberta.", load_deberta_v2_for_sequence_classification(dir), deberta_v2_model);
}

GoldenModel vit_model(const std::string& dir) {
  auto loaded = load_vit_for_image_classification(dir);
  GoldenModel golden = golden_model("ViT", "vit.", loaded, vit_model);
  // The fixture's processor check: one 8-bit image through ViTImageProcessor (mean = std = 0.5), then the model.
  golden.extra_checks = [model = loaded.model](const SafetensorsFile& io) mutable {
    model->eval();
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

}  // namespace

TEST_CASE("checkpoints written by transformers 4.30.2 load and give its logits on every golden fixture",
          "[models][golden]") {
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
    GoldenModel& golden = *loaded;
    std::cout << "golden: " << dir.filename().string() << " (" << golden.architecture << "): checked\n";
    checked_types.push_back(model_type);
    CHECK(golden.report.missing.empty());
    CHECK(golden.report.unexpected.empty());
    // 4.30.2 saves the text encoders' position_ids buffer; later versions do not.
    const auto& ignored = golden.report.ignored;
    const std::string buffer = golden.base_prefix + "embeddings.position_ids";
    if (SafetensorsFile((dir / "model.safetensors").string()).contains(buffer)) {
      CHECK(std::count(ignored.begin(), ignored.end(), buffer) == 1);
    }
    for (const auto& name : ignored) {
      CHECK_THAT(name, Catch::EndsWith("embeddings.position_ids") || Catch::EndsWith("embeddings.token_type_ids"));
    }
    const SafetensorsFile io((dir / "io.safetensors").string());
    check_close("logits", golden_logits(*golden.model, io), io.tensor("logits"));
    if (golden.extra_checks) golden.extra_checks(io);
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
    const auto before = golden_logits(*loaded->model, io);

    capaboost::testing::TempDir out;
    loaded->save(out.path().string());
    auto reloaded = loaded->reload(out.path().string());
    CHECK(torch::equal(before, golden_logits(*reloaded.model, io)));

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
