#include "plan/run_key.h"

#include <catch2/catch.hpp>

using namespace capaboost::harness;

TEST_CASE("run keys are stable across key order and labels and change with any config", "[harness][plan]") {
  RunConfig a;
  a.measure = "rank";
  a.config = nlohmann::json::parse(R"({"rank": 8, "method": "lora", "seed": 42})");
  a.data_fingerprint = "none";
  RunConfig b = a;
  b.config = nlohmann::json::parse(R"({"seed": 42, "method": "lora", "rank": 8})");
  b.label = "another label";
  CHECK(run_key(a) == run_key(b));
  // Pinned: a change to the canonical form would silently orphan every stored record.
  CHECK(canonical_run_text(a) ==
        R"({"code_version":"capaboost-bench/2","config":{"method":"lora","rank":8,"seed":42},"data":"none","measure":"rank"})");

  for (const auto& change : {R"({"rank": 16})", R"({"seed": 43})", R"({"rank": 8.0001})", R"({"mask": "diff"})"}) {
    RunConfig c = a;
    const auto delta = nlohmann::json::parse(change);  // items() must not outlive the parsed object
    for (auto& [k, v] : delta.items()) c.config[k] = v;
    INFO(change);
    CHECK(run_key(c) != run_key(a));
  }
  RunConfig d = a;
  d.data_fingerprint = "abc";
  CHECK(run_key(d) != run_key(a));

  // A model fingerprint joins the key only when there is one: other runs keep their keys.
  RunConfig e = a;
  e.model_fingerprint = "recipe:123";
  CHECK(canonical_run_text(e) != canonical_run_text(a));
  CHECK(canonical_run_text(e).find(R"("model":"recipe:123")") != std::string::npos);
}

TEST_CASE("names listed as unkeyed stay in the config but out of the key", "[harness][plan]") {
  RunConfig a;
  a.measure = "finetune";
  a.config = nlohmann::json::parse(R"({"rank": 8, "precision": "fp32"})");
  a.data_fingerprint = "none";
  a.unkeyed = {"precision"};
  RunConfig without = a;
  without.config.erase("precision");
  without.unkeyed.clear();
  CHECK(canonical_run_text(a) == canonical_run_text(without));
  CHECK(a.config.contains("precision"));
  RunConfig keyed = a;
  keyed.unkeyed.clear();
  CHECK(run_key(keyed) != run_key(a));
}
