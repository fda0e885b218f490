#include "corpus/brown_reader.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "util/sha256.h"
#include "lib/corpus/corpus_fixtures.h"

using namespace capaboost;
using capaboost::testing::FixtureSources;

TEST_CASE("Brown POS tags are stripped and tokens rejoined on a real corpus line", "[corpus][brown]") {
  CHECK(detag_brown_sentence(capaboost::testing::kBrownLine) ==
        "The Fulton County Grand Jury said Friday an investigation of Atlanta's recent primary election produced "
        "\"no evidence\" that any irregularities took place.");
}

TEST_CASE("Brown detagging spaces punctuation brackets and quotes like English text", "[corpus][brown]") {
  CHECK(detag_brown_sentence("Reps./nns-tl V./np E./np (/( Red/np )/) Berry/np ./.") == "Reps. V. E. (Red) Berry.");
  // Cut at the last '/': fractions keep theirs.
  CHECK(detag_brown_sentence("every/at 1-1/2/cd minutes/nns ,/, he/pps said/vbd ;/. yes/rb !/.") ==
        "every 1-1/2 minutes, he said; yes!");
  // Lone single quotes open and close alternately.
  CHECK(detag_brown_sentence("more/ap '/' pro/jj '/' than/in '/' con/jj '/' ./.") == "more 'pro' than 'con'.");
  CHECK(detag_brown_sentence("``/`` Only/rb ''/'' ,/, the/at jury/nn said/vbd ./.") == "\"Only\", the jury said.");
  CHECK(detag_brown_sentence("  \t ") == "");
}

TEST_CASE("read_brown reads the Brown text files in order one sentence per unit", "[corpus][brown]") {
  FixtureSources fixture;
  const SourceText text = read_brown(fixture.sources().brown_dir, 0);
  CHECK(text.units == std::vector<std::string>{
                          "The Fulton County Grand Jury said Friday an investigation of Atlanta's recent primary "
                          "election produced \"no evidence\" that any irregularities took place.",
                          "The jury said it did find that many laws \"are outmoded\".", "It was (perhaps) late.",
                          "He asked: why?", "No one answered."});
  REQUIRE(text.files.size() == 2);  // README and cats.txt are not text files
  CHECK(text.files[0].name == "ca01");
  CHECK(text.files[1].name == "cb01");
  CHECK(text.files[0].sha256.size() == 64);
  CHECK(text.files[1].bytes > 0);

  const SourceText slice = read_brown(fixture.sources().brown_dir, 3);
  CHECK(slice.units.size() == 3);
  CHECK(slice.units[2] == "It was (perhaps) late.");
}

TEST_CASE("read_brown names the missing directory and the make target", "[corpus][brown]") {
  capaboost::testing::TempDir empty;
  CHECK_THROWS_WITH(read_brown(empty.file("absent"), 0), Catch::Contains("absent") &&
                                                             Catch::Contains("make corpus-sources"));
  CHECK_THROWS_WITH(read_brown(empty.path().string(), 0), Catch::Contains("no Brown text files"));
}
