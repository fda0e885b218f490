#include "params/resolution.h"

#include <catch2/catch.hpp>

using namespace capaboost;
using Catch::Contains;

namespace {

// A two-level family: `kind` selects the parameters of "a" or "b".
ParameterList family() {
  return {
      ParameterDef::integer("size", "a size").defaults_to(4).at_least(1),
      ParameterDef::text("kind", "which plugin")
          .one_of([] { return std::vector<std::string>{"a", "b"}; })
          .selects([](const nlohmann::json& value) {
            if (value == "a") {
              return ParameterList{ParameterDef::number("scale", "a's scale").defaults_to(2).owned_by("plugin a")};
            }
            return ParameterList{
                ParameterDef::integer("width", "b's width").optional().owned_by("plugin b"),
                ParameterDef::integer("depth", "b's depth")
                    .derived("2 × size unless width is set",
                             [](const nlohmann::json& resolved) {
                               return resolved.contains("width") ? resolved.at("width").get<int64_t>()
                                                                 : 2 * resolved.at("size").get<int64_t>();
                             })
                    .owned_by("plugin b"),
            };
          }),
  };
}

}  // namespace

TEST_CASE("resolution fills defaults, derived values and the selected plugin's parameters", "[params]") {
  const auto a = resolve_parameters(family(), {{"kind", "a"}});
  REQUIRE(a.ok());
  CHECK(a.config == nlohmann::json({{"size", 4}, {"kind", "a"}, {"scale", 2.0}}));
  CHECK(a.config.at("scale").is_number_float());  // number-typed values serialise as floats, always

  const auto b = resolve_parameters(family(), {{"kind", "b"}, {"size", 5}});
  REQUIRE(b.ok());
  CHECK(b.config == nlohmann::json({{"size", 5}, {"kind", "b"}, {"depth", 10}}));  // optional width stays unset
  CHECK(resolve_parameters(family(), {{"kind", "b"}, {"width", 3}}).config.at("depth") == 3);
  CHECK(b.definitions.size() == 4);
}

TEST_CASE("resolution reports bad values, missing required ones and names nobody declares", "[params]") {
  const auto missing = resolve_parameters(family(), nlohmann::json::object());
  REQUIRE(missing.problems.size() == 1);
  CHECK(missing.problems[0].parameter == "kind");
  CHECK_THAT(missing.problems[0].message, Contains("'kind' is required"));
  CHECK(missing.incomplete);

  const auto bad = resolve_parameters(family(), {{"kind", "c"}, {"size", 0}, {"scale", 3.0}});
  REQUIRE(bad.problems.size() == 2);
  CHECK(bad.problems[0].message == "'size' = 0 is out of range: must be >= 1");
  CHECK(bad.problems[1].message == "unknown kind 'c' (did you mean 'a'?); choose one of: a, b");
  CHECK(bad.incomplete);  // `scale` might apply once kind is fixed
  CHECK(bad.unused == std::vector<std::string>{"scale"});

  const auto wrong_plugin = resolve_parameters(family(), {{"kind", "b"}, {"scale", 3.0}});
  CHECK(wrong_plugin.problems.empty());
  CHECK_FALSE(wrong_plugin.incomplete);
  CHECK(wrong_plugin.unused == std::vector<std::string>{"scale"});

  const auto wrong_type = resolve_parameters(family(), {{"kind", "a"}, {"size", "four"}});
  REQUIRE(wrong_type.problems.size() == 1);
  CHECK(wrong_type.problems[0].message == "'size' must be an integer (a size), got \"four\"");
}

TEST_CASE("a name declared twice among a run's plugins is a problem", "[params]") {
  ParameterList twice{ParameterDef::integer("size", "one").defaults_to(1).owned_by("x"),
                      ParameterDef::integer("size", "two").defaults_to(2).owned_by("y")};
  const auto resolution = resolve_parameters(twice, nlohmann::json::object());
  REQUIRE(resolution.problems.size() == 1);
  CHECK(resolution.problems[0].message == "'size' is declared by both x and y; a parameter needs one home");
}
