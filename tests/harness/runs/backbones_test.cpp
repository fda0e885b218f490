#include "runs/backbones.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "pretrain/backbone_recipes.h"
#include "runs/run_config.h"
#include "spec/spec.h"

using namespace capaboost::harness;

TEST_CASE("the suite's own encoders are identified by their recipe in run keys, other models are not",
          "[harness][backbones]") {
  const auto of = [](const char* model) { return offline_backbone_fingerprint({{"model", model}}); };
  CHECK(of("mini").rfind("recipe:", 0) == 0);
  // The random twin shares the architecture and tokenizer of the recipe, so it changes with it too.
  CHECK(of("mini-random") == of("mini"));
  CHECK(of("smoke") != of("mini"));
  CHECK(of("smoke-random") == of("smoke"));
  CHECK(of("tiny-random").empty());
  CHECK(of("roberta-base").empty());
  CHECK(of("-random").empty());
  CHECK(offline_backbone_fingerprint({{"method", "lora"}}).empty());
  CHECK(offline_backbone_profile("mini-random") == "mini");
  CHECK(offline_backbone_profile("smoke") == "smoke");
  CHECK_FALSE(offline_backbone_profile("roberta-base-random").has_value());
}

TEST_CASE("every spec's runs on the suite's own encoders fit the encoder's positions", "[harness][backbones]") {
  // The offline encoders are pre-trained on blocks of block_size tokens and have no position beyond:
  // a spec (or profile) that asks for longer inputs would fail at run time, run after run.
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(CAPABOOST_SOURCE_DIR) + "/experiments")) {
    if (entry.path().extension() != ".yaml" || entry.path().filename() == "profiles.yaml") continue;
    const Spec spec = load_spec(entry.path().string());
    for (const auto& profile : profile_names()) {
      for (const auto& run : expand_spec(spec, profile, nullptr)) {
        const auto encoder = offline_backbone_profile(run.parameters.value("model", std::string()));
        if (!encoder) continue;
        INFO(entry.path().filename().string() << " profile " << profile << " row " << run.label);
        // 128 is the finetune measure's default max_length.
        CHECK(run.parameters.value("max_length", int64_t{128}) <=
              capaboost::backbone_recipe(*encoder).train_blocks.block_size());
        ++checked;
      }
    }
  }
  CHECK(checked > 0);
}
