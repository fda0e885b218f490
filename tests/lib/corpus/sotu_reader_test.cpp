#include "corpus/sotu_reader.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "lib/corpus/corpus_fixtures.h"

using namespace capaboost;
using Strings = std::vector<std::string>;

TEST_CASE("SOTU sentences split at end punctuation but not after titles initials or U.S.", "[corpus][sotu]") {
  CHECK(split_sentences("Mr. Jefferson agrees. The U.S. Congress met in 1790.  Gen. Grant and H. Clay spoke! "
                        "Why? \"Because.\" 3 votes followed.") ==
        Strings{"Mr. Jefferson agrees.", "The U.S. Congress met in 1790.", "Gen. Grant and H. Clay spoke!", "Why?",
                "\"Because.\"", "3 votes followed."});
  // A lower-case continuation is not a new sentence.
  CHECK(split_sentences("It cost 2.5 dollars, i.e. little. done") == Strings{"It cost 2.5 dollars, i.e. little. done"});
  CHECK(split_sentences("   ").empty());
}

TEST_CASE("SOTU paragraphs pack whole sentences up to the word limit", "[corpus][sotu]") {
  const Strings sentences = {"one two three.", "four five.", "six seven eight nine.", "ten."};
  CHECK(pack_paragraphs(sentences, 5) == Strings{"one two three. four five.", "six seven eight nine. ten."});
  CHECK(pack_paragraphs(sentences, 2) == Strings{"one two three.", "four five.", "six seven eight nine.", "ten."});
  CHECK_THROWS(pack_paragraphs(sentences, 0));
}

TEST_CASE("read_sotu reads the address text files in order into paragraph units", "[corpus][sotu]") {
  capaboost::testing::FixtureSources fixture;
  const SourceText text = read_sotu(fixture.sources().sotu_dir, 0);
  CHECK(text.units == Strings{"Fellow-Citizens of the Senate and House of Representatives: I embrace with great "
                              "satisfaction the opportunity. Mr. Jefferson agrees. The U.S. Congress met in 1790.",
                              "Our progress has been steady. Peace endures!"});
  REQUIRE(text.files.size() == 2);  // the .json twins are not read
  CHECK(text.files[0].name == "data/1790_george_washington_n.txt");
  CHECK(read_sotu(fixture.sources().sotu_dir, 1).units.size() == 1);
  CHECK_THROWS_WITH(read_sotu(fixture.path("nowhere").string(), 0),
                    Catch::Contains("nowhere") && Catch::Contains("make corpus-sources"));
}
