#include "util/closest_match.h"

#include <catch2/catch.hpp>

using namespace capaboost;

TEST_CASE("did-you-mean suggests only close names", "[util][closest_match]") {
  CHECK(closest_match("rnak", {"rank", "alpha"}) == "rank");  // a transposition is one edit
  CHECK(closest_match("bottlenek", {"bottleneck", "branches"}) == "bottleneck");
  CHECK(closest_match("zzz", {"rank", "alpha"}).empty());
  CHECK(did_you_mean("lroa", {"lora", "adapter"}) == " (did you mean 'lora'?)");
  CHECK(did_you_mean("qqqq", {"lora", "adapter"}).empty());
}
