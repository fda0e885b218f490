// harness/scripts/convert_pytorch_checkpoint.py: a checkpoint published as pytorch_model.bin only (as
// microsoft/deberta-v3-base is) is refused with the conversion command, and after the conversion loads
// with every tensor as torch.save wrote it.

#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>

#include "models/deberta_v2_pretrained.h"
#include "support/reference_python.h"
#include "support/temp_dir.h"

using namespace capaboost;
using capaboost::testing::TempDir;

namespace {

const std::string kConvertScript = std::string(CAPABOOST_SOURCE_DIR) + "/harness/scripts/convert_pytorch_checkpoint.py";

// Random tensors under `layout`'s names and shapes, saved by torch.save; their float64 sums beside them.
const char* const kWriteBin = R"(
import json, sys, torch
directory = sys.argv[1]
layout = json.load(open(directory + "/layout.json"))
torch.manual_seed(0)
state = {name: torch.randn(shape) for name, shape in layout.items()}
torch.save(state, directory + "/pytorch_model.bin")
json.dump({name: t.double().sum().item() for name, t in state.items()}, open(directory + "/sums.json", "w"))
)";

}  // namespace

TEST_CASE("pytorch_model.bin checkpoints are refused with the command that converts them, and load after it",
          "[harness][scripts][python]") {
  const auto python = capaboost::testing::reference_python();
  if (!python) {
    WARN("skipped: no system python3 with torch (Debian's python3-torch)");
    return;
  }
  TempDir dir;
  const auto options = DebertaV2Options()
                           .vocab_size(50)
                           .hidden_size(16)
                           .num_hidden_layers(2)
                           .num_attention_heads(2)
                           .intermediate_size(24)
                           .position_buckets(8)
                           .num_labels(3);
  {
    DebertaV2ForSequenceClassification model(options);
    save_pretrained(*model, dir.path().string());  // config.json (+ a model.safetensors we replace)
    std::filesystem::remove(dir.file(kWeightsFileName));
    nlohmann::json layout;
    for (const auto& item : model->named_parameters()) layout[item.key()] = item.value().sizes().vec();
    std::ofstream(dir.file("layout.json")) << layout.dump();
  }
  std::ofstream(dir.file("write_bin.py")) << kWriteBin;
  const auto written = capaboost::testing::run_command("'" + *python + "' '" + dir.file("write_bin.py") + "' '" +
                                                       dir.path().string() + "'");
  INFO(written.output);
  REQUIRE(written.exit_code == 0);

  CHECK_THROWS_WITH(load_deberta_v2_for_sequence_classification(dir.path().string()),
                    Catch::Contains("convert_pytorch_checkpoint.py") && Catch::Contains("pytorch_model.bin"));

  const auto converted =
      capaboost::testing::run_command("'" + *python + "' '" + kConvertScript + "' '" + dir.path().string() + "'");
  INFO(converted.output);
  REQUIRE(converted.exit_code == 0);
  CHECK_FALSE(std::filesystem::exists(dir.file("model.safetensors.partial")));

  auto [model, report] = load_deberta_v2_for_sequence_classification(dir.path().string());
  CHECK(report.missing.empty());
  CHECK(report.unexpected.empty());
  const auto sums = nlohmann::json::parse(std::ifstream(dir.file("sums.json")));
  CHECK(sums.size() == model->named_parameters().size());
  for (const auto& item : model->named_parameters()) {
    INFO(item.key());
    REQUIRE(sums.contains(item.key()));
    CHECK(item.value().to(torch::kDouble).sum().item<double>() == Approx(sums[item.key()].get<double>()).margin(1e-9));
  }
}
