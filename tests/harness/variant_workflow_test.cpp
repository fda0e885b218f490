// The plugin shape from a researcher's side: the test-only variant in tests/variants/ (a LoRA whose
// CapaBoost masks follow its own rule, with its own parameter) is named by specs, planned, run and
// recorded through the harness's own functions, and reaches a capaboost program through the same
// CMake function a user's variant folder goes through — without touching lib/ or harness/.

#include "execute/executor.h"
#include "measures/measure_registry.h"
#include "peft/lora.h"
#include "peft/method_registry.h"
#include "plan/expansion.h"
#include "plan/plan.h"
#include "sites/site_registry.h"

#include "harness/fixtures.h"
#include "lib/data/glue_test_support.h"
#include "support/temp_dir.h"

#include <catch2/catch.hpp>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

using namespace capaboost;
using namespace capaboost::harness;
using capaboost::testing::TempDir;
using Catch::Contains;

namespace {

// Runs every run of `spec_file` under `profile` into `results`; returns label → record.
std::map<std::string, RunRecord> run_spec(const std::string& spec_file, const std::string& profile,
                                          const std::string& results) {
  const Spec spec = load_checked_spec(spec_file);
  const auto runs = plan_runs(spec, profile);
  RecordStore store(results);
  ExecuteOptions options;
  options.spec_name = spec.name;
  options.profile = profile;
  options.context.data_root = test::mirror_root().path.string();
  const auto summary = execute(runs, store, options, axis_names(spec));
  CHECK(summary.failed == 0);
  std::map<std::string, RunRecord> by_label;
  for (const auto& run : runs) by_label.emplace(run.label, *store.read(run.key));
  return by_label;
}

std::string command_output(const std::string& command) {
  TempDir dir;
  const auto log = dir.path() / "out.txt";
  const int status = std::system((command + " > '" + log.string() + "' 2>&1").c_str());
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  INFO(command << "\n" << text.str());
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  return text.str();
}

}  // namespace

TEST_CASE("the test variant registers itself with its own parameter", "[harness][variant]") {
  const MethodSpec& method = find_method("striped-lora");
  const auto has = [&](const std::string& name) {
    return std::any_of(method.parameters.begin(), method.parameters.end(), [&](const auto& def) { return def.name == name; });
  };
  CHECK(has("stripe_width"));
  CHECK(has("targets"));
  CHECK(method.parameters.front().owner == "method striped-lora");

  // Its rule, not random draws: branch i of the stacked A keeps exactly the columns of stripe i.
  auto model = std::make_shared<torch::nn::Module>();
  model->register_module("site", TunableLinear(12, 12));
  method.attach(*model, resolve_or_throw(method.parameters,
                                         {{"targets", {"site"}}, {"rank", 2}, {"branches", 3}, {"stripe_width", 2}},
                                         "method striped-lora"));
  auto lora = std::dynamic_pointer_cast<LoraImpl>(find_sites(*model).front().second->tuner());
  REQUIRE(lora);
  torch::NoGradGuard no_grad;
  lora->A.fill_(1.0);
  const auto a_cat = lora->stacked_factors(/*training=*/false).first;  // (d·r, in) = (6, 12)
  for (int64_t branch = 0; branch < 3; ++branch) {
    for (int64_t column = 0; column < 12; ++column) {
      const bool kept = (column / 2) % 3 == branch;
      CHECK(a_cat[2 * branch][column].item<float>() == (kept ? 1.0f : 0.0f));
    }
  }
  // The stripes partition the factor: every entry is seen by exactly one branch.
  CHECK(lora->parameter_count().effective == lora->parameter_count().dense);
}

TEST_CASE("a spec names the variant; it plans and runs through the harness like a built-in", "[harness][variant]") {
  const std::string spec_file = harness::testing::fixture("specs/variants/striped_lora.yaml");
  const Spec spec = load_checked_spec(spec_file);
  for (const auto& run : plan_runs(spec, "smoke")) {
    if (run.config.at("method") == "striped-lora") {
      CHECK(run.config.contains("stripe_width"));  // its own parameter, with its default filled where unset
      CHECK_FALSE(run.config.contains("density"));  // CapaBoost's random-mask parameters are not its
    }
  }
  TempDir results;
  for (const auto& [profile, rank] : {std::pair<std::string, int>{"smoke", 2}, {"paper", 4}}) {
    INFO("profile " << profile);
    const auto records = run_spec(spec_file, profile, (results.path() / profile).string());
    // Disjoint stripes over d branches reach rank d·r, like random CapaBoost masks, with no parameter
    // left unseen (effective = dense).
    CHECK(records.at("LoRA").metrics.at("rank") == rank);
    CHECK(records.at("striped d=2").metrics.at("rank") == 2 * rank);
    CHECK(records.at("striped d=4").metrics.at("rank") == 4 * rank);
    CHECK(records.at("striped d=4").metrics.at("params_effective") == records.at("LoRA").metrics.at("params_dense"));
    CHECK(records.at("striped d=4").config.at("stripe_width") == 2);
    // Every metric a run records is one its measure declares: what report specs are checked against.
    for (const auto& [label, record] : records) {
      for (const auto& [name, value] : record.metrics.items()) CHECK(declares_metric(find_measure(record.measure), name));
    }
  }
}

TEST_CASE("the variant fine-tunes on the smoke profile", "[harness][variant]") {
  REQUIRE_MIRROR("RTE");
  if (!std::filesystem::exists(test::mirror_root().path / "tokenizers" / "roberta-base" / "vocab.json")) {
    WARN("skipped: tokenizers/roberta-base not in the data mirror");
    return;
  }
  TempDir results;
  const auto records = run_spec(harness::testing::fixture("specs/variants/striped_lora_finetune.yaml"), "smoke",
                                results.path().string());
  const RunRecord& striped = records.at("striped d=2");
  CHECK(striped.ok());
  CHECK(striped.config.at("stripe_width") == 4);
  CHECK(striped.metrics.at("steps") == 2);  // 32 examples, batch 16, one epoch
  CHECK(striped.details.at("sites").size() == 4);  // query and value of both layers
  for (const auto& [name, value] : striped.metrics.items()) {
    INFO(name);
    CHECK(declares_metric(find_measure("finetune"), name));
  }
}

TEST_CASE("a capaboost program built with the variant folder lists and plans it; the plain one does not",
          "[harness][variant][process]") {
  const std::string with_variants = CAPABOOST_VARIANTS_BINARY;
  const std::string spec = harness::testing::fixture("specs/variants/striped_lora.yaml");
  TempDir results;
  CHECK_THAT(command_output("'" + with_variants + "' methods"), Contains("striped-lora") && Contains("stripe_width"));
  const std::string plan = command_output("'" + with_variants + "' plan '" + spec + "' --profile smoke --format json --results '" +
                                          results.path().string() + "'");
  CHECK_THAT(plan, Contains("\"stripe_width\":1") && Contains("\"stripe_width\":2"));
  const int status = std::system(("'" + std::string(CAPABOOST_BINARY) + "' plan '" + spec + "' > /dev/null 2>&1").c_str());
  CHECK(WEXITSTATUS(status) == 3);  // the spec names a method this program was built without
}

TEST_CASE("compare my variant: the README's example runs beside LoRA and CapaBoost-LoRA and reports paired differences",
          "[harness][variant][process]") {
  REQUIRE_MIRROR("RTE");
  if (!std::filesystem::exists(test::mirror_root().path / "tokenizers" / "roberta-base" / "vocab.json")) {
    WARN("skipped: tokenizers/roberta-base not in the data mirror");
    return;
  }
  // As the README's section does it: the program built with the variant folder runs the spec, then reports.
  const std::string program = "CAPABOOST_DATA_DIR='" + test::mirror_root().path.string() + "' '" +
                              std::string(CAPABOOST_VARIANTS_BINARY) + "'";
  const std::string spec = harness::testing::fixture("specs/variants/striped_lora_finetune.yaml");
  TempDir results;
  const std::string where = " --profile smoke --results '" + results.path().string() + "'";
  const std::string ran = command_output(program + " run '" + spec + "'" + where + " 2>&1");
  CHECK_THAT(ran, Contains("9 run, 0 failed"));
  const std::string report = command_output(program + " report '" + spec + "'" + where);
  // One paired line per baseline, over the three seeds, and a verdict per claim.
  CHECK_THAT(report, Contains("| striped d=2 | LoRA | paper_score | 3 |"));
  CHECK_THAT(report, Contains("| striped d=2 | CapaBoost-LoRA | paper_score | 3 |"));
  CHECK_THAT(report, Contains("| the striped variant vs LoRA |"));
  CHECK_THAT(report, Contains("| the striped variant vs CapaBoost-LoRA (random masks) |"));
}
