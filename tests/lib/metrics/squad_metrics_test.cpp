// The official scripts' answer metrics on hand-worked cases, their quirks included, and the
// normalisation checked against Python's own str.lower / string.punctuation / re on every answer and
// question of the SQuAD v1.1 dev set.

#include "metrics/squad_metrics.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>

#include "data/squad_dataset.h"
#include "lib/data/glue_test_support.h"
#include "support/read_text.h"
#include "support/reference_python.h"
#include "support/temp_dir.h"

using namespace capaboost;
using Catch::WithinAbs;

TEST_CASE("normalisation: lower case, ASCII punctuation, whole-word articles, whitespace", "[metrics][squad]") {
  CHECK(normalize_squad_answer("The  Quick, brown fox!") == "quick brown fox");
  CHECK(normalize_squad_answer("an apple a day") == "apple day");
  CHECK(normalize_squad_answer("Theater anatomy") == "theater anatomy");  // articles only as whole words
  CHECK(normalize_squad_answer("a-the") == "athe");      // punctuation goes first, joining the words
  CHECK(normalize_squad_answer("the_end") == "theend");  // "_" is in string.punctuation
  CHECK(normalize_squad_answer("  \t the\n") == "");
  // Unicode: lower case beyond ASCII, non-ASCII punctuation kept, Unicode spaces split, Final_Sigma.
  CHECK(normalize_squad_answer("ÉCOLE Normale") == "école normale");
  CHECK(normalize_squad_answer("New\u00a0York\u2009City") == "new york city");
  CHECK(normalize_squad_answer("\u201cHi\u201d \u2014 there") == "\u201chi\u201d \u2014 there");
  CHECK(normalize_squad_answer("ΟΔΟΣ ΣΑ") == "οδος σα");
  CHECK(normalize_squad_answer("\u0130stanbul") == "i\u0307stanbul");
  CHECK(normalize_squad_answer("the café") == "café");
}

TEST_CASE("exact match and token F1 as both scripts compute them", "[metrics][squad]") {
  CHECK(squad_exact_match("The Denver Broncos.", "denver broncos"));
  CHECK_FALSE(squad_exact_match("Denver", "Denver Broncos"));
  // Shared 2 of 3 predicted and 4 gold tokens: P = 1, R = 1/2, F1 = 2/3 ("the" is dropped).
  CHECK_THAT(squad_f1_v1("the cat sat", "cat sat on mat"), WithinAbs(2.0 / 3.0, 1e-15));
  // Repeated tokens count as a multiset: [cat, cat] against [cat] shares one.
  CHECK_THAT(squad_f1_v1("a cat the cat", "cat"), WithinAbs(2.0 / 3.0, 1e-15));
  CHECK(squad_f1_v1("dog", "cat") == 0.0);
  // The quirk that sets the versions apart: two empty answers.
  CHECK(squad_exact_match("", ""));
  CHECK(squad_f1_v1("", "") == 0.0);
  CHECK(squad_f1_v2("", "") == 1.0);
  CHECK(squad_f1_v2("the", "") == 1.0);  // "the" normalises to nothing: a no-answer prediction
  CHECK(squad_f1_v2("", "Denver") == 0.0);
  CHECK(squad_f1_v2("cat sat", "cat sat on mat") == squad_f1_v1("cat sat", "cat sat on mat"));
  CHECK(squad_tokens("The cat, the hat") == std::vector<std::string>{"cat", "hat"});
}

TEST_CASE("normalisation equals Python's on every answer and question of the v1.1 dev set", "[metrics][squad][python]") {
  const auto path = test::mirror_root().path / "SQuAD" / "dev-v1.1.json";
  const auto python = testing::system_python();
  if (!std::filesystem::exists(path) || !python) {
    WARN("skipped: needs " << path << " and a system python3");
    return;
  }
  const SquadDataset dev = load_squad(path.string());
  nlohmann::json texts = nlohmann::json::array();
  for (const auto& question : dev.questions) {
    texts.push_back(question.question);
    for (const auto& answer : question.answers) texts.push_back(answer.text);
  }
  capaboost::testing::TempDir dir;
  std::ofstream(dir.file("texts.json")) << texts.dump();
  const auto reference = testing::run_command("'" + *python + "' '" + CAPABOOST_SOURCE_DIR +
                                              "/tests/support/squad_reference.py' normalize '" + dir.file("texts.json") + "'");
  REQUIRE(reference.exit_code == 0);
  const auto expected = nlohmann::json::parse(reference.output);
  REQUIRE(expected.size() == texts.size());
  size_t differing = 0, non_ascii = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    const auto text = texts[i].get<std::string>();
    non_ascii += std::any_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
    if (normalize_squad_answer(text) != expected[i].get<std::string>()) {
      if (++differing <= 5) UNSCOPED_INFO(text << " -> " << normalize_squad_answer(text) << " | python: " << expected[i]);
    }
  }
  CHECK(differing == 0);
  CHECK(non_ascii > 1000);  // the check covers Unicode text, not only ASCII
}
