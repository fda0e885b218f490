#include "params/parameters.h"

#include <catch2/catch.hpp>

using namespace capaboost;
using Catch::Contains;

TEST_CASE("resolve_or_throw gives typed access to a complete configuration", "[params]") {
  const ParameterList definitions{ParameterDef::integer("rank", "r").defaults_to(8),
                                  ParameterDef::number("alpha", "a").defaults_to(16)};
  const Parameters config = resolve_or_throw(definitions, {{"rank", 4}}, "method test");
  CHECK(config.get<int64_t>("rank") == 4);
  CHECK(config.get<double>("alpha") == 16.0);
  CHECK_THROWS_WITH(config.get<int64_t>("bottleneck"), Contains("'bottleneck' is not in the resolved configuration"));
  CHECK_THROWS_WITH(resolve_or_throw(definitions, {{"rnak", 4}}, "method test"),
                    Contains("'rnak' is not a parameter of method test (did you mean 'rank'?)"));
  CHECK_THROWS_WITH(resolve_or_throw(definitions, {{"rank", "four"}}, "method test"),
                    Contains("method test: 'rank' must be an integer"));
}
