#include "backbones/offline_backbones.h"

#include <catch2/catch.hpp>

#include "backbones/backbone_registry.h"

using namespace capaboost;

TEST_CASE("the suite's own encoders are identified by their recipe in run keys, other models are not",
          "[backbones]") {
  CHECK(backbone_fingerprint("mini").rfind("recipe:", 0) == 0);
  // The random twin shares the architecture and tokenizer of the recipe, so it changes with it too.
  CHECK(backbone_fingerprint("mini-random") == backbone_fingerprint("mini"));
  CHECK(backbone_fingerprint("smoke") != backbone_fingerprint("mini"));
  CHECK(backbone_fingerprint("smoke-random") == backbone_fingerprint("smoke"));
  // mini-deberta shares mini's corpus and tokenizer but not its architecture.
  CHECK(backbone_fingerprint("mini-deberta") != backbone_fingerprint("mini"));
  CHECK(backbone_fingerprint("mini-deberta-random") == backbone_fingerprint("mini-deberta"));
  CHECK(offline_backbone_profile("mini-deberta-random") == "mini-deberta");
  CHECK(backbone_fingerprint("tiny-random").empty());
  CHECK(backbone_fingerprint("roberta-base").empty());
  CHECK(backbone_fingerprint("-random").empty());
  CHECK(offline_backbone_profile("mini-random") == "mini");
  CHECK(offline_backbone_profile("smoke") == "smoke");
  CHECK_FALSE(offline_backbone_profile("roberta-base-random").has_value());
}

TEST_CASE("unknown model names are refused with the named backbones listed", "[backbones]") {
  CHECK(check_backbone_name("mini").empty());
  CHECK(check_backbone_name("mnii").find("did you mean 'mini'") != std::string::npos);
  CHECK(check_backbone_name("/no/such/checkpoint").find("tiny-random") != std::string::npos);
}
