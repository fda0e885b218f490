#include "runs/run_config.h"

#include "data/sha256.h"

#include "harness/fixtures.h"

#include <catch2/catch.hpp>

#include <set>

using namespace capaboost::harness;

TEST_CASE("expansion: rows x grid x zip x lr x seeds, profile applied last", "[harness][expand]") {
  const Spec spec = load_spec(testing::fixture("specs/good/sweep.yaml"));
  const auto runs = expand_spec(spec, "paper", nullptr);
  CHECK(runs.size() == 2 * 2 * 2 * 2 * 3);  // rows, density, zip pairs, lrs, seeds
  const auto& first = runs.front();
  CHECK(first.label == "A");
  CHECK(first.parameters.at("rank") == 2);
  CHECK(first.parameters.at("alpha") == 1);
  CHECK(first.parameters.at("lora_dropout") == 0.0);
  CHECK(first.parameters.at("lr") == 0.001);
  CHECK(first.parameters.at("seed") == 1);
  CHECK(first.data_fingerprint == "none");
  // zip pairs values element by element: alpha 2 only ever goes with dropout 0.1.
  for (const auto& run : runs) {
    CHECK((run.parameters.at("alpha") == 2) == (run.parameters.at("lora_dropout") == 0.1));
  }
  std::set<std::string> keys;
  for (const auto& run : runs) keys.insert(run.key);
  CHECK(keys.size() == runs.size());

  const auto smoke = expand_spec(spec, "smoke", nullptr);
  CHECK(smoke.size() == 2 * 1 * 2 * 2 * 1);
  for (const auto& run : smoke) {
    CHECK(run.parameters.at("rank") == 1);  // the overlay wins over the rows
    CHECK(run.parameters.at("seed") == 7);
    CHECK(run.parameters.at("density") == 0.5);
  }
}

TEST_CASE("run keys are stable across key order and labels and change with any config", "[harness][expand]") {
  RunConfig a;
  a.measure = "rank";
  a.parameters = nlohmann::json::parse(R"({"rank": 8, "method": "lora", "seed": 42})");
  a.data_fingerprint = "none";
  RunConfig b = a;
  b.parameters = nlohmann::json::parse(R"({"seed": 42, "method": "lora", "rank": 8})");
  b.label = "another label";
  CHECK(capaboost::sha256_hex(canonical_run_text(a)) == capaboost::sha256_hex(canonical_run_text(b)));
  // Pinned: a change to the canonical form would silently orphan every stored record.
  CHECK(canonical_run_text(a) ==
        R"({"code_version":"capaboost-bench/1","data":"none","measure":"rank","parameters":{"method":"lora","rank":8,"seed":42}})");

  for (const auto& change : {R"({"rank": 16})", R"({"seed": 43})", R"({"rank": 8.0001})", R"({"mask": "diff"})"}) {
    RunConfig c = a;
    const auto delta = nlohmann::json::parse(change);  // items() must not outlive the parsed object
    for (auto& [k, v] : delta.items()) c.parameters[k] = v;
    INFO(change);
    CHECK(capaboost::sha256_hex(canonical_run_text(c)) != capaboost::sha256_hex(canonical_run_text(a)));
  }
  RunConfig d = a;
  d.data_fingerprint = "abc";
  CHECK(capaboost::sha256_hex(canonical_run_text(d)) != capaboost::sha256_hex(canonical_run_text(a)));

  // A model fingerprint joins the key only when there is one: other runs keep their stored keys.
  RunConfig e = a;
  e.model_fingerprint = "recipe:123";
  CHECK(canonical_run_text(e) != canonical_run_text(a));
  CHECK(canonical_run_text(e).find(R"("model":"recipe:123")") != std::string::npos);
}

TEST_CASE("a profile's replace swaps one parameter value and leaves the others", "[harness][expand]") {
  // experiments/profiles.yaml: under smoke, rows naming the mini encoder run the smoke encoder.
  const Spec spec = load_spec(std::string(CAPABOOST_SOURCE_DIR) + "/experiments/backbone_sanity.yaml");
  std::set<std::string> smoke_models, mini_models;
  for (const auto& run : expand_spec(spec, "smoke", nullptr)) smoke_models.insert(run.parameters.at("model"));
  for (const auto& run : expand_spec(spec, "mini", nullptr)) mini_models.insert(run.parameters.at("model"));
  CHECK(smoke_models == std::set<std::string>{"smoke", "smoke-random"});
  CHECK(mini_models == std::set<std::string>{"mini", "mini-random"});

  // `set` still wins over `replace`; values not listed are untouched.
  Spec copy = spec;
  copy.profiles["smoke"].set["model"] = "tiny-random";
  for (const auto& run : expand_spec(copy, "smoke", nullptr)) CHECK(run.parameters.at("model") == "tiny-random");
  copy.profiles["smoke"].set.erase("model");
  copy.profiles["smoke"].replace = nlohmann::json::parse(R"({"model": [["mini", "smoke"]]})");
  std::set<std::string> partly;
  for (const auto& run : expand_spec(copy, "smoke", nullptr)) partly.insert(run.parameters.at("model"));
  CHECK(partly == std::set<std::string>{"smoke", "mini-random"});
}
