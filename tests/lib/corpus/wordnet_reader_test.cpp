#include "corpus/wordnet_reader.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "lib/corpus/corpus_fixtures.h"

using namespace capaboost;
using Strings = std::vector<std::string>;

TEST_CASE("WordNet gloss and quoted examples come out of a real data-file line", "[corpus][wordnet]") {
  const WordNetGloss gloss = parse_wordnet_gloss(capaboost::testing::kWordNetBreatheLine);
  CHECK(gloss.definition == "draw air into, and expel out of, the lungs");
  CHECK(gloss.examples == Strings{"I can breathe better when the air is clean", "The patient is respiring"});
}

TEST_CASE("WordNet examples lose attributions and header lines give nothing", "[corpus][wordnet]") {
  // data.noun synset 00958896 (conflict): an example with an attribution and a semicolon-free definition.
  const WordNetGloss gloss = parse_wordnet_gloss(
      "00958896 04 n 03 conflict 0 struggle 2 battle 2 000 | an open clash between two opposing groups (or "
      "individuals); \"the harder the conflict the more glorious the triumph\"--Thomas Paine; \"police tried to "
      "control the battle between the pro- and anti-abortion mobs\"  ");
  CHECK(gloss.definition == "an open clash between two opposing groups (or individuals)");
  CHECK(gloss.examples == Strings{"the harder the conflict the more glorious the triumph",
                                  "police tried to control the battle between the pro- and anti-abortion mobs"});
  // A definition with its own semicolon and no examples stays whole.
  CHECK(parse_wordnet_gloss("00001 00 n 01 x 0 000 | first sense; second sense  ").definition ==
        "first sense; second sense");
  const WordNetGloss header = parse_wordnet_gloss("  1 This software and database is being provided");
  CHECK(header.definition.empty());
  CHECK(header.examples.empty());
}

TEST_CASE("read_wordnet reads noun verb adj adv one unit per definition and example", "[corpus][wordnet]") {
  capaboost::testing::FixtureSources fixture;
  const SourceText text = read_wordnet(fixture.sources().wordnet_dir, 0);
  CHECK(text.units ==
        Strings{"that which is perceived or known or inferred to have its own distinct existence (living or nonliving)",
                "draw air into, and expel out of, the lungs", "I can breathe better when the air is clean",
                "The patient is respiring", "(usually followed by `to') having the necessary means or skill",
                "able to swim", "only a very short time before"});
  REQUIRE(text.files.size() == 4);
  CHECK(text.files[0].name == "data.noun");
  CHECK(text.files[3].name == "data.adv");
  CHECK(read_wordnet(fixture.sources().wordnet_dir, 3).units.size() == 3);

  std::filesystem::remove(fixture.path("wordnet/data.adj"));
  CHECK_THROWS_WITH(read_wordnet(fixture.sources().wordnet_dir, 0),
                    Catch::Contains("data.adj") && Catch::Contains("make deps") && Catch::Contains("wordnet-base"));
}
