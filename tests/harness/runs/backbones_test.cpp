#include "runs/backbones.h"

#include <catch2/catch.hpp>

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
}
