#include "data/squad_dataset.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <optional>
#include <set>

#include "lib/data/glue_test_support.h"
#include "support/temp_dir.h"

using namespace capaboost;
using Catch::Contains;

namespace {

// A file of the mirror's SQuAD folder, read; nullopt (after a visible warning) when it is absent.
std::optional<SquadDataset> mirror_squad(const std::string& name) {
  const auto path = test::mirror_root().path / "SQuAD" / name;
  if (std::filesystem::exists(path)) return load_squad(path.string());
  WARN("skipped: " << path << " not found (set CAPABOOST_DATA_DIR to the mirror)");
  return std::nullopt;
}

std::string failure_of(const std::string& text) {
  capaboost::testing::TempDir dir;
  std::ofstream(dir.file("bad.json")) << text;
  try {
    load_squad(dir.file("bad.json"));
  } catch (const c10::Error& e) {
    return e.what_without_backtrace();
  }
  return "";
}

}  // namespace

TEST_CASE("the official SQuAD v1.1 dev set reads as published", "[data][squad]") {
  const auto read = mirror_squad("dev-v1.1.json");
  if (!read) return;
  const SquadDataset& dev = *read;
  // Its published counts: 48 articles, 10,570 questions, every one answerable.
  CHECK(dev.version == "1.1");
  CHECK(dev.major_version == 1);
  CHECK(dev.questions.size() == 10570);
  std::set<std::string> titles;
  for (const auto& question : dev.questions) {
    titles.insert(question.title);
    CHECK_FALSE(question.answers.empty());
  }
  CHECK(titles.size() == 48);
  const auto& first = dev.questions.front();
  CHECK(first.id == "56be4db0acb8001400a502ec");
  CHECK(first.title == "Super_Bowl_50");
  CHECK(first.question == "Which NFL team represented the AFC at Super Bowl 50?");
  REQUIRE(first.answers.size() == 3);
  CHECK(first.answers[0].text == "Denver Broncos");
  CHECK(first.answers[0].start == 177);
  CHECK(first.context.substr(177, 14) == "Denver Broncos");  // an ASCII context: code points are bytes
}

TEST_CASE("Hugging Face's flat v2.0 sample reads with its unanswerable questions", "[data][squad]") {
  const auto read = mirror_squad("sample-hf-v2-format.json");
  if (!read) return;
  const SquadDataset& sample = *read;
  CHECK(sample.version == "2.0");  // a number in the file
  CHECK(sample.major_version == 2);
  REQUIRE(sample.questions.size() == 14);
  size_t unanswerable = 0;
  for (const auto& question : sample.questions) unanswerable += question.answers.empty();
  CHECK(unanswerable == 6);
  CHECK(sample.questions[0].id == "56ddde6b9a695914005b9628");
  CHECK(sample.questions[0].answers.size() == 4);
  CHECK(sample.questions[0].answers[0].text == "France");
  CHECK(sample.questions[0].answers[0].start == 159);
}

TEST_CASE("an official v2.0 layout keeps plausible answers apart and infers the version", "[data][squad]") {
  const auto dataset = parse_squad(nlohmann::json::parse(R"({"data": [{"title": "T", "paragraphs": [{"context": "ab cd",
      "qas": [{"id": "1", "question": "q?", "answers": [{"text": "ab", "answer_start": 0}]},
              {"id": "2", "question": "r?", "answers": [], "is_impossible": true,
               "plausible_answers": [{"text": "cd", "answer_start": 3}]}]}]}]})"),
                                   "inline");
  CHECK(dataset.version.empty());
  CHECK(dataset.major_version == 2);  // no version, an unanswerable question
  REQUIRE(dataset.questions.size() == 2);
  CHECK(dataset.questions[1].answers.empty());
  REQUIRE(dataset.questions[1].plausible_answers.size() == 1);
  CHECK(dataset.questions[1].plausible_answers[0].start == 3);
}

TEST_CASE("malformed SQuAD files fail naming the file, the entry and the problem", "[data][squad]") {
  CHECK_THAT(failure_of(R"({"version": "1.1", "data": [{"title": "T", "paragra)"), Contains("not valid JSON"));
  // Found by make fuzz: a number beyond double's range is nlohmann's out_of_range, not parse_error.
  CHECK_THAT(failure_of(R"({"version": "1.1", "data": [{"id": "a", "question": 1e400}]})"),
             Contains("bad.json") && Contains("not valid JSON") && Contains("1e400"));
  CHECK_THAT(failure_of(R"({"version": "1.1"})"), Contains("not a SQuAD file"));
  CHECK_THAT(failure_of(R"({"data": [{"paragraphs": [{"qas": []}]}]})"),
             Contains("data[0].paragraphs[0]: needs a string 'context'"));
  CHECK_THAT(failure_of(R"({"data": [{"paragraphs": [{"context": "c", "qas": [{"id": "1", "question": "q",
      "answers": [{"text": "c", "answer_start": -1}]}]}]}]})"),
             Contains("answer_start must be a non-negative integer"));
  CHECK_THAT(failure_of(R"({"data": [{"id": "1", "question": "q", "context": "c",
      "answers": {"text": ["c", "c"], "answer_start": [0]}}]})"),
             Contains("as long as answers.text (2)"));
  CHECK_THAT(failure_of(R"({"data": [{"id": "1", "question": "q", "context": "c", "answers": {"text": []}},
      {"id": "1", "question": "q", "context": "c", "answers": {"text": []}}]})"),
             Contains("question id '1' appears twice"));
  CHECK_THAT(failure_of(R"({"data": [{"paragraphs": [{"context": "c", "qas": [{"id": "1", "question": "q",
      "is_impossible": true, "answers": [{"text": "c", "answer_start": 0}]}]}]}]})"),
             Contains("is_impossible is true but it has answers"));
  CHECK_THAT(failure_of(R"({"version": "3.0", "data": []})"), Contains("neither SQuAD 1.x nor 2.x"));
  CHECK_THAT(failure_of(R"({"version": "1.1", "data": [{"paragraphs": 3}]})"),
             Contains("bad.json: data[0]: 'paragraphs' must be a list"));
}

TEST_CASE("a SQuAD title or is_impossible of another JSON type fails naming the entry", "[data][squad]") {
  // Found by the squad fuzz target (2026-12-07): a flat entry whose "title" was an object escaped
  // load_squad as nlohmann's type_error; an official one's title and is_impossible the same way.
  CHECK_THAT(failure_of(R"({"version": 2.0, "data": [{"id": "c", "title": {"text": ["A cat"]}, "question": "q",
      "context": "c", "answers": {"text": []}}]})"),
             Contains("bad.json: data[0]: 'title' must be a string"));
  CHECK_THAT(failure_of(R"({"data": [{"title": 7, "paragraphs": []}]})"),
             Contains("bad.json: data[0]: 'title' must be a string"));
  CHECK_THAT(failure_of(R"({"data": [{"paragraphs": [{"context": "c", "qas": [{"id": "1", "question": "q",
      "is_impossible": "yes", "answers": []}]}]}]})"),
             Contains("qas[0]: 'is_impossible' must be true or false"));
  // A null title is no title, as an absent one.
  CHECK(parse_squad(nlohmann::json::parse(R"({"data": [{"id": "a", "title": null, "question": "q", "context": "c",
      "answers": {"text": []}}]})"), "null.json").questions.at(0).title.empty());
}
