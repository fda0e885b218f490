#include "params/parameter.h"

#include <catch2/catch.hpp>

using namespace capaboost;

TEST_CASE("check_value checks type, range, choices and rules", "[params]") {
  const auto density = ParameterDef::number("density", "kept fraction").above(0).at_most(1);
  CHECK(check_value(density, 0.5).empty());
  CHECK(check_value(density, 1).empty());  // an integer is a number
  CHECK(check_value(density, 0.0) == "'density' = 0.0 is out of range: must be > 0 and <= 1");
  CHECK(check_value(density, "half") == "'density' must be a number (kept fraction), got \"half\"");

  const auto mask = ParameterDef::text("mask", "mask kind").one_of([] { return std::vector<std::string>{"diff", "same"}; });
  CHECK(check_value(mask, "same").empty());
  CHECK(check_value(mask, "dif") == "unknown mask 'dif' (did you mean 'diff'?); choose one of: diff, same");

  const auto targets = ParameterDef::text_list("targets", "suffixes");
  CHECK(check_value(targets, nlohmann::json::array({"query", "value"})).empty());
  CHECK_FALSE(check_value(targets, nlohmann::json::array({"query", 3})).empty());

  const auto even = ParameterDef::integer("n", "an even number").checked_by([](const nlohmann::json& v, const nlohmann::json&) {
    return v.get<int64_t>() % 2 == 0 ? std::string() : std::string("n must be even");
  });
  CHECK(check_value(even, 4).empty());
  CHECK(check_value(even, 3) == "n must be even");
}

TEST_CASE("listings show a default, a derivation rule, 'unset' or 'required'", "[params]") {
  CHECK(ParameterDef::integer("rank", "r").defaults_to(8).default_text() == "8");
  CHECK(ParameterDef::text("init", "i").defaults_to("peft").default_text() == "peft");
  CHECK(ParameterDef::text("mask", "m")
            .derived("diff when branches > 1", [](const nlohmann::json&) { return nlohmann::json("diff"); })
            .default_text() == "diff when branches > 1");
  CHECK(ParameterDef::number("alpha_over_rank", "a").optional().default_text() == "unset");
  CHECK(ParameterDef::text("method", "m").default_text() == "required");
  CHECK(ParameterDef::text("method", "m").required());
}

TEST_CASE("unkeyed_at_default needs a plain default", "[params]") {
  auto precision = ParameterDef::text("precision", "products").defaults_to("fp32");
  CHECK(precision.keyed_at_default);
  CHECK_FALSE(precision.unkeyed_at_default().keyed_at_default);
  auto required = ParameterDef::text("model", "backbone");
  CHECK_THROWS_WITH(required.unkeyed_at_default(), Catch::Contains("needs a plain default"));
}
