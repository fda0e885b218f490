// `capaboost export` as a user runs it: a CapaBoost-LoRA run fine-tuned through `capaboost run` keeps
// its tuned state beside its record and exports as a PEFT LoRA adapter that the command checks against
// the trained model; runs it cannot export get a clear refusal.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "lib/data/glue_test_support.h"
#include "support/read_text.h"
#include "support/reference_python.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using Catch::Contains;
using capaboost::testing::read_text;

namespace {

// label → record of every run in `results`.
std::map<std::string, nlohmann::json> records_by_label(const fs::path& results) {
  std::map<std::string, nlohmann::json> by_label;
  for (const auto& entry : fs::directory_iterator(results / "runs")) {
    if (entry.path().extension() != ".json") continue;
    const auto record = nlohmann::json::parse(read_text(entry.path()));
    by_label[record.at("label").get<std::string>()] = record;
  }
  return by_label;
}

}  // namespace

TEST_CASE("export writes a fine-tuned CapaBoost-LoRA run as a checked PEFT adapter", "[harness][process][peft_export]") {
  REQUIRE_MIRROR("RTE");
  const fs::path mirror = capaboost::test::mirror_root().path;
  if (!fs::exists(mirror / "tokenizers" / "roberta-base" / "vocab.json")) {
    WARN("skipped: tokenizers/roberta-base not in the data mirror");
    return;
  }
  capaboost::testing::TempDir dir;
  std::ofstream(dir.file("export.yaml")) << "name: export_check\n"
                                            "title: runs to export\n"
                                            "measure: finetune\n"
                                            "defaults: {model: tiny-random, task: RTE, epochs: 2, batch_size: 16, "
                                            "max_length: 64, train_limit: 32, rank: 4, alpha: 8}\n"
                                            "rows:\n"
                                            "  - {label: CapaBoost-LoRA, method: lora, branches: 2}\n"
                                            "  - {label: PAdapter, method: adapter, bottleneck: 4}\n"
                                            "lr_grid: [1.0e-3]\n"
                                            "seeds: [42]\n";
  const std::string program = "CAPABOOST_DATA_DIR='" + mirror.string() + "' '" + CAPABOOST_BINARY + "'";
  const std::string results = dir.file("results");
  const auto ran = capaboost::testing::run_command(program + " run '" + dir.file("export.yaml") + "' --results '" +
                                                   results + "'");
  INFO(ran.output);
  REQUIRE(ran.exit_code == 0);
  const auto records = records_by_label(results);
  const std::string key = records.at("CapaBoost-LoRA").at("key");
  // The run kept its tuners and head at the best epoch, and says so in its record.
  CHECK(fs::exists(fs::path(results) / "runs" / (key + ".safetensors")));
  const auto kept = records.at("CapaBoost-LoRA").at("details").at("tuned_state");
  CHECK(kept.at("complete") == true);
  CHECK(kept.at("epoch") == records.at("CapaBoost-LoRA").at("metrics").at("best_epoch"));

  const std::string out = dir.file("adapter");
  const auto exported = capaboost::testing::run_command(program + " export " + key.substr(0, 12) + " '" + out +
                                                        "' --results '" + results + "'");
  INFO(exported.output);
  REQUIRE(exported.exit_code == 0);
  CHECK_THAT(exported.output, Contains("LoRA rank 8 on 4 modules") && Contains("checked:"));
  const auto config = nlohmann::json::parse(read_text(fs::path(out) / "adapter_config.json"));
  CHECK(config.at("r") == 8);            // d·r = 2·4
  CHECK(config.at("lora_alpha") == 16);  // α·d, so lora_alpha / r = 8 / 4
  CHECK(config.at("task_type") == "SEQ_CLS");
  CHECK(fs::exists(fs::path(out) / "adapter_model.safetensors"));
  CHECK_THAT(read_text(fs::path(out) / "README.md"), Contains("PeftModel.from_pretrained") && Contains(key));

  const std::string adapter_key = records.at("PAdapter").at("key");
  const auto refused = capaboost::testing::run_command(program + " export " + adapter_key + " '" + dir.file("no") +
                                                       "' --results '" + results + "'");
  CHECK(refused.exit_code != 0);
  CHECK_THAT(refused.output, Contains("only LoRA"));
  const auto unknown = capaboost::testing::run_command(program + " export 0123456789ab '" + dir.file("no") +
                                                       "' --results '" + results + "'");
  CHECK(unknown.exit_code != 0);
  CHECK_THAT(unknown.output, Contains("no run record") && Contains("0123456789ab"));
}
