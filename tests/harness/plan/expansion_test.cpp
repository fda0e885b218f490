#include "plan/expansion.h"

#include "harness/fixtures.h"

#include <catch2/catch.hpp>

#include <map>
#include <set>

using namespace capaboost::harness;

TEST_CASE("expansion: rows x grid x zip x lr x seeds, profile applied last", "[harness][plan]") {
  const Spec spec = load_spec(capaboost::harness::testing::fixture("specs/good/sweep.yaml"));
  const auto drafts = expand_spec(spec, "paper");
  CHECK(drafts.size() == 2 * 2 * 2 * 2 * 3);  // rows, density, zip pairs, lrs, seeds
  const auto& first = drafts.front();
  CHECK(first.label == "A");
  CHECK(first.given.at("rank") == 2);
  CHECK(first.given.at("alpha") == 1);
  CHECK(first.given.at("lora_dropout") == 0.0);
  CHECK(first.given.at("lr") == 0.001);
  CHECK(first.given.at("seed") == 1);
  // Every given value knows where the spec wrote it, and whether it is shared.
  CHECK(first.origins.at("rank").where == "row 'A'");
  CHECK(first.origins.at("rank").mark.line == 6);
  CHECK_FALSE(first.origins.at("rank").shared);
  CHECK(first.origins.at("model").where == "defaults");
  CHECK(first.origins.at("model").shared);
  CHECK(first.origins.at("density").where == "grid");
  CHECK(first.origins.at("seed").where == "seeds");
  // zip pairs values element by element: alpha 2 only ever goes with dropout 0.1.
  for (const auto& draft : drafts) {
    CHECK((draft.given.at("alpha") == 2) == (draft.given.at("lora_dropout") == 0.1));
  }

  const auto smoke = expand_spec(spec, "smoke");
  CHECK(smoke.size() == 2 * 1 * 2 * 2 * 1);
  for (const auto& draft : smoke) {
    CHECK(draft.given.at("rank") == 1);  // the overlay wins over the rows
    CHECK(draft.origins.at("rank").where == "profile 'smoke' set");
    CHECK(draft.origins.at("rank").shared);
    CHECK(draft.given.at("seed") == 7);
    CHECK(draft.given.at("density") == 0.5);
  }
}

TEST_CASE("a run's name gives every swept parameter once, the rate and seed last unless a grid sweeps them",
          "[harness][plan]") {
  Spec spec = load_spec(capaboost::harness::testing::fixture("specs/good/sweep.yaml"));
  CHECK(axis_names(spec) == std::vector<std::string>{"density", "alpha", "lora_dropout", "lr", "seed"});
  spec.grid.push_back(Axis{"lr", {0.001, 0.002}, {}});  // a grid over the rate: its column, named once
  CHECK(axis_names(spec) == std::vector<std::string>{"density", "lr", "alpha", "lora_dropout", "seed"});
}

TEST_CASE("a spec without seeds or lr_grid leaves seed and lr to their defaults", "[harness][plan]") {
  Spec spec = load_spec(capaboost::harness::testing::fixture("specs/good/sweep.yaml"));
  spec.seeds.clear();
  spec.lr_grid.clear();
  const auto drafts = expand_spec(spec, "paper");
  CHECK(drafts.size() == 2 * 2 * 2);
  for (const auto& draft : drafts) {
    CHECK_FALSE(draft.given.contains("seed"));
    CHECK_FALSE(draft.given.contains("lr"));
  }
}

TEST_CASE("a profile's replace swaps one parameter value and leaves the others", "[harness][plan]") {
  // experiments/profiles.yaml: under smoke, rows naming the mini encoder run the smoke encoder.
  const Spec spec = load_spec(std::string(CAPABOOST_SOURCE_DIR) + "/experiments/backbone_sanity.yaml");
  std::set<std::string> smoke_models, mini_models;
  for (const auto& draft : expand_spec(spec, "smoke")) smoke_models.insert(draft.given.at("model"));
  for (const auto& draft : expand_spec(spec, "mini")) mini_models.insert(draft.given.at("model"));
  CHECK(smoke_models == std::set<std::string>{"smoke", "smoke-random"});
  CHECK(mini_models == std::set<std::string>{"mini", "mini-random"});

  // `set` still wins over `replace`; values not listed are untouched.
  Spec copy = spec;
  copy.profiles["smoke"].set["model"] = "tiny-random";
  copy.profiles["smoke"].set_marks["model"] = {};
  for (const auto& draft : expand_spec(copy, "smoke")) CHECK(draft.given.at("model") == "tiny-random");
  copy.profiles["smoke"].set.erase("model");
  copy.profiles["smoke"].replace = nlohmann::json::parse(R"({"model": [["mini", "smoke"]]})");
  std::set<std::string> partly;
  for (const auto& draft : expand_spec(copy, "smoke")) partly.insert(draft.given.at("model"));
  CHECK(partly == std::set<std::string>{"smoke", "mini-random"});
}

TEST_CASE("a row's per values and lr_grid replace the spec's for that row; the profile still wins", "[harness][plan]") {
  const Spec spec = load_spec(capaboost::harness::testing::fixture("specs/good/per_row.yaml"));
  const auto drafts = expand_spec(spec, "paper");
  REQUIRE(drafts.size() == 2 * 2 + 2 * 1);  // Zip: 2 tasks × 2 lrs; Per: 2 tasks × its own 1 lr
  std::map<std::pair<std::string, std::string>, std::set<int64_t>> epochs;  // (label, task) → epochs
  std::set<double> per_lrs;
  for (const auto& draft : drafts) {
    epochs[{draft.label, draft.given.at("task").get<std::string>()}].insert(draft.given.at("epochs").get<int64_t>());
    if (draft.label == "Per") {
      per_lrs.insert(draft.given.at("lr").get<double>());
      CHECK(draft.origins.at("lr").where == "row 'Per' lr_grid");
      CHECK(draft.origins.at("epochs").where == "row 'Per' per task");
      CHECK(draft.origins.at("epochs").mark.line == 8);
    }
  }
  CHECK(epochs.at({"Zip", "RTE"}) == std::set<int64_t>{3});
  CHECK(epochs.at({"Zip", "STS-B"}) == std::set<int64_t>{5});
  CHECK(epochs.at({"Per", "RTE"}) == std::set<int64_t>{7});
  CHECK(epochs.at({"Per", "STS-B"}) == std::set<int64_t>{9});
  CHECK(per_lrs == std::set<double>{1e-4});
  for (const auto& draft : expand_spec(spec, "smoke")) CHECK(draft.given.at("epochs") == 1);
  for (const auto& draft : expand_spec(spec, "mini")) CHECK(draft.given.at("lr") == 5e-4);
}

TEST_CASE("a profile's row_lr_grid gives one row its own rates, over the profile's lr_grid", "[harness][plan]") {
  Spec spec = load_spec(capaboost::harness::testing::fixture("specs/good/per_row.yaml"));
  auto& mini = spec.profiles["mini"];  // lr_grid [5e-4] for every row
  mini.row_lr_grids["Per"] = {1e-5, 2e-5};
  mini.row_lr_grid_marks["Per"] = {};
  std::map<std::string, std::set<double>> lrs;
  for (const auto& draft : expand_spec(spec, "mini")) {
    lrs[draft.label].insert(draft.given.at("lr").get<double>());
    if (draft.label == "Per") CHECK(draft.origins.at("lr").where == "profile 'mini' row_lr_grid");
  }
  CHECK(lrs.at("Per") == std::set<double>{1e-5, 2e-5});
  CHECK(lrs.at("Zip") == std::set<double>{5e-4});

  mini.row_lr_grids["Pre"] = {1e-3};
  mini.row_lr_grid_marks["Pre"] = {};
  CHECK_THROWS_WITH(expand_spec(spec, "mini"), Catch::Contains("row_lr_grid names row 'Pre'") &&
                                                   Catch::Contains("did you mean 'Per'"));
}

TEST_CASE("a profile's keep_rows runs only the rows it names; a label the spec lacks is an error", "[harness][plan]") {
  Spec spec = load_spec(capaboost::harness::testing::fixture("specs/good/per_row.yaml"));
  auto& mini = spec.profiles["mini"];
  mini.keep_rows = std::vector<std::string>{"Per"};
  std::set<std::string> labels;
  for (const auto& draft : expand_spec(spec, "mini")) labels.insert(draft.label);
  CHECK(labels == std::set<std::string>{"Per"});
  CHECK(profile_runs_row(spec, "mini", "Per"));
  CHECK_FALSE(profile_runs_row(spec, "mini", "Zip"));
  // Other profiles keep every row.
  CHECK(profile_runs_row(spec, "smoke", "Zip"));
  labels.clear();
  for (const auto& draft : expand_spec(spec, "smoke")) labels.insert(draft.label);
  CHECK(labels == std::set<std::string>{"Zip", "Per"});

  mini.keep_rows = std::vector<std::string>{"Per", "Zap"};
  CHECK_THROWS_WITH(expand_spec(spec, "mini"), Catch::Contains("keep_rows names row 'Zap'") &&
                                                   Catch::Contains("did you mean 'Zip'"));
}

TEST_CASE("a row with lr_grid: [] runs its own rate, or its per's, outside the spec's rate sweep", "[harness][plan]") {
  const Spec spec = load_spec(capaboost::harness::testing::fixture("specs/good/own_rates.yaml"));
  std::map<std::pair<std::string, std::string>, std::multiset<double>> lrs;  // (row, task) → rates
  for (const auto& draft : expand_spec(spec, "paper")) {
    lrs[{draft.label, draft.given.at("task").get<std::string>()}].insert(draft.given.at("lr").get<double>());
  }
  CHECK(lrs.at({"Swept", "RTE"}) == std::multiset<double>{1e-3, 3e-3});
  CHECK(lrs.at({"Recipe", "RTE"}) == std::multiset<double>{7e-4});  // one run, not one per swept rate
  CHECK(lrs.at({"Recipe", "STS-B"}) == std::multiset<double>{9e-4});
  CHECK(lrs.at({"Fixed", "STS-B"}) == std::multiset<double>{2e-4});
  // A profile's lr_grid still wins over the row's own rate (the per, applied after it, keeps its own).
  for (const auto& draft : expand_spec(spec, "mini")) {
    if (draft.label != "Recipe") CHECK(draft.given.at("lr") == 5e-4);
  }
}
