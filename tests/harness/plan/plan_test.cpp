#include "plan/plan.h"
#include "plan/run_key.h"

#include "backbones/offline_backbones.h"
#include "models/deberta_v2.h"
#include "models/roberta.h"
#include "params/parameters.h"
#include "peft/method_registry.h"
#include "harness/fixtures.h"
#include "pretrain/backbone_recipes.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

using namespace capaboost::harness;
namespace fs = std::filesystem;

namespace {

std::string experiment(const std::string& name) { return std::string(CAPABOOST_SOURCE_DIR) + "/experiments/" + name; }

}  // namespace

TEST_CASE("every experiment spec plans under every profile", "[harness][plan]") {
  int specs = 0;
  for (const auto& entry : fs::directory_iterator(std::string(CAPABOOST_SOURCE_DIR) + "/experiments")) {
    if (entry.path().extension() != ".yaml" || entry.path().filename() == "profiles.yaml") continue;
    INFO(entry.path().filename().string());
    const Spec spec = load_checked_spec(entry.path().string());
    for (const auto& profile : profile_names()) {
      INFO(profile);
      if (spec_has_profile(spec, profile)) {
        CHECK_FALSE(plan_runs(spec, profile).empty());
      } else {
        CHECK_THROWS_WITH(plan_runs(spec, profile), Catch::Contains("has no '" + profile + "' profile") &&
                                                        Catch::Contains("--profile mini"));
      }
    }
    ++specs;
  }
  CHECK(specs >= 6);
}

TEST_CASE("cpu is opt-in: only specs with their own cpu overlay run under it", "[harness][plan]") {
  CHECK(is_opt_in_profile("cpu"));
  CHECK_FALSE(is_opt_in_profile("mini"));
  const Spec with = load_checked_spec(experiment("capaboost_vs_lora.yaml"));
  CHECK(spec_has_profile(with, "cpu"));
  for (const auto& run : plan_runs(with, "cpu")) CHECK(run.config.at("model") == "minilm");
  const Spec without = load_checked_spec(experiment("table3_glue_deberta_v3_base.yaml"));
  CHECK_FALSE(spec_has_profile(without, "cpu"));
  CHECK(spec_has_profile(without, "mini"));
}

TEST_CASE("planning fills every default: a run's config holds every effective value", "[harness][plan]") {
  const Spec spec = load_checked_spec(experiment("table2_glue_roberta_base.yaml"));
  int lora = 0, full = 0;
  for (const auto& run : plan_runs(spec, "paper")) {
    const auto& config = run.config;
    if (config.at("method") == "lora") {
      ++lora;
      // The values the library used to pick silently are now recorded (and part of the key).
      for (const char* name : {"mask_seed", "lora_init", "alpha", "warmup_ratio", "seed", "mask", "density", "nm",
                               "lora_dropout", "split_seed", "protocol", "train_limit", "grad_clip"}) {
        INFO(run.label << " lacks " << name);
        CHECK(config.contains(name));
      }
      CHECK(config.at("mask_seed") == 0);
      CHECK(config.at("lora_init") == "peft");
      CHECK(config.at("mask") == (config.at("branches") == 1 ? "none" : "diff"));
    }
    if (config.at("method") == "full") {
      ++full;
      // Shared defaults apply where a run takes them: full fine-tuning takes no CapaBoost density.
      CHECK_FALSE(config.contains("density"));
      CHECK_FALSE(config.contains("rank"));
      // Its row's own recipe (RoBERTa's GLUE settings) replaces the PEFT grid and epochs.
      CHECK(config.at("batch_size") == 32);
      CHECK(config.at("epochs") == 10);
    }
  }
  CHECK(lora == 2 * 8 * 9 * 3);
  CHECK(full == 8 * 3 * 3);  // its own grid of three learning rates
}

TEST_CASE("derived defaults follow the parameters they derive from", "[harness][plan]") {
  const Spec spec = load_checked_spec(experiment("table1_rank.yaml"));
  std::set<std::pair<int64_t, double>> rank_alpha;
  for (const auto& run : plan_runs(spec, "paper")) {
    // alpha_over_rank 1.5 turns into the effective alpha of each rank.
    CHECK(run.config.at("alpha").get<double>() == 1.5 * run.config.at("rank").get<double>());
    rank_alpha.insert({run.config.at("rank").get<int64_t>(), run.config.at("alpha").get<double>()});
  }
  CHECK(rank_alpha.size() == 4);
}

TEST_CASE("seeds default to the seed parameter's default", "[harness][plan]") {
  Spec spec = load_checked_spec(experiment("theorem1.yaml"));
  spec.seeds.clear();
  for (const auto& run : plan_runs(spec, "paper")) CHECK(run.config.at("seed") == 42);
}

TEST_CASE("the fingerprint functions join the key", "[harness][plan]") {
  const Spec spec = load_checked_spec(experiment("rte_demo.yaml"));
  const auto plain = plan_runs(spec, "mini");
  const auto fingerprinted = plan_runs(
      spec, "mini", [](const nlohmann::json&) { return std::string("data-hash"); },
      [](const nlohmann::json&) { return std::string("recipe:1"); });
  REQUIRE(plain.size() == fingerprinted.size());
  for (size_t i = 0; i < plain.size(); ++i) {
    CHECK(fingerprinted[i].data_fingerprint == "data-hash");
    CHECK(fingerprinted[i].model_fingerprint == "recipe:1");
    CHECK(fingerprinted[i].key != plain[i].key);
  }
}

TEST_CASE("a parameter unkeyed at its default is recorded but keeps earlier runs' keys", "[harness][plan]") {
  Spec spec = load_checked_spec(experiment("rte_demo.yaml"));
  const auto fp32 = plan_runs(spec, "mini");
  REQUIRE_FALSE(fp32.empty());
  const auto unkeyed = [](const RunConfig& run, const std::string& name) {
    return std::find(run.unkeyed.begin(), run.unkeyed.end(), name) != run.unkeyed.end();
  };
  for (const auto& run : fp32) {
    CHECK(run.config.at("precision") == "fp32");  // recorded with every default
    // Every parameter added after runs were recorded, at its default (the others are lr_schedule,
    // weight_updates, the three batch-order ones and GLUE's epoch_selection).
    CHECK(std::set<std::string>(run.unkeyed.begin(), run.unkeyed.end()) ==
          std::set<std::string>{"precision", "lr_schedule", "weight_updates", "epoch_selection", "group_by_length",
                                "shuffle_grouped_batches", "mega_batch_mult"});
    // The key is that of the same config without the parameter: what runs recorded before it hashed to.
    REQUIRE(unkeyed(run, "precision"));
    RunConfig before = run;
    before.config.erase("precision");
    before.unkeyed.erase(std::find(before.unkeyed.begin(), before.unkeyed.end(), "precision"));
    CHECK(run.key == run_key(before));
  }
  spec.defaults["precision"] = "bf16";
  spec.default_marks["precision"] = SourceMark{};
  const auto bf16 = plan_runs(spec, "mini");
  REQUIRE(bf16.size() == fp32.size());
  for (size_t i = 0; i < bf16.size(); ++i) {
    CHECK_FALSE(unkeyed(bf16[i], "precision"));
    CHECK(canonical_run_text(bf16[i]).find(R"("precision":"bf16")") != std::string::npos);
    CHECK(bf16[i].key != fp32[i].key);
  }
}

TEST_CASE("every spec's runs on the suite's own encoders fit the encoder's positions", "[harness][plan]") {
  // The offline encoders are pre-trained on blocks of block_size tokens and have no position beyond:
  // a spec (or profile) that asks for longer inputs would fail at run time, run after run.
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(CAPABOOST_SOURCE_DIR) + "/experiments")) {
    if (entry.path().extension() != ".yaml" || entry.path().filename() == "profiles.yaml") continue;
    const auto spec = load_checked_spec(entry.path().string());
    for (const auto& profile : profile_names()) {
      if (!spec_has_profile(spec, profile)) continue;
      for (const auto& run : plan_runs(spec, profile)) {
        const auto encoder = capaboost::offline_backbone_profile(run.config.value("model", std::string()));
        if (!encoder) continue;
        INFO(entry.path().filename().string() << " profile " << profile << " row " << run.label);
        CHECK(run.config.at("max_length").get<int64_t>() <= capaboost::backbone_recipe(*encoder).train_blocks.block_size());
        ++checked;
      }
    }
  }
  CHECK(checked > 0);
}

TEST_CASE("Table 3's placements: LoRA on the six matrices of every layer in both layouts, adapters per row",
          "[harness][plan][paper]") {
  const Spec spec = load_checked_spec(experiment("table3_glue_deberta_v3_base.yaml"));
  std::map<std::string, nlohmann::json> config_of;  // label → one paper-profile config
  for (const auto& run : plan_runs(spec, "paper")) config_of.emplace(run.label, run.config);
  const auto sites = [&](torch::nn::Module& model, const std::string& label) {
    const auto& config = config_of.at(label);
    // As the finetune measure attaches it: the planned config is already resolved.
    const auto& method = capaboost::find_method(config.at("method").get<std::string>());
    return method.attach(model, capaboost::Parameters(config)).size();
  };
  const auto deberta = [] {
    return capaboost::DebertaV2ForSequenceClassification(
        capaboost::DebertaV2Options().vocab_size(100).hidden_size(32).num_hidden_layers(3).num_attention_heads(4)
            .intermediate_size(64));
  };
  const auto roberta = [] {
    return capaboost::RobertaForSequenceClassification(
        capaboost::roberta_options().vocab_size(100).hidden_size(32).num_hidden_layers(3).num_attention_heads(4)
            .intermediate_size(64));
  };
  for (const char* label : {"LoRA", "CapaBoost-LoRA"}) {
    INFO(label);
    auto on_deberta = deberta();
    CHECK(sites(*on_deberta, label) == 6 * 3);
    auto on_roberta = roberta();
    CHECK(sites(*on_roberta, label) == 6 * 3);
  }
  auto houlsby = deberta();
  CHECK(sites(*houlsby, "HAdapter") == 2 * 3);
  for (const char* label : {"PAdapter", "CapaBoost-PAdapter"}) {
    auto pfeiffer = deberta();
    CHECK(sites(*pfeiffer, label) == 3);
  }
}
