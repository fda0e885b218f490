#include "data/squad_splits.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include "lib/data/glue_test_support.h"
#include "support/temp_dir.h"

using namespace capaboost;
using capaboost::testing::TempDir;
using Catch::Contains;

namespace {

// A nested SQuAD file of `articles` articles, one paragraph and two questions each.
void write_squad(const std::string& path, int articles, const std::string& version = "1.1") {
  nlohmann::json data = nlohmann::json::array();
  for (int a = 0; a < articles; ++a) {
    const std::string context = "article " + std::to_string(a) + " text";
    nlohmann::json qas = nlohmann::json::array();
    for (int q = 0; q < 2; ++q) {
      qas.push_back({{"id", std::to_string(a) + "-" + std::to_string(q)},
                     {"question", "which?"},
                     {"answers", {{{"text", "text"}, {"answer_start", static_cast<int>(context.size()) - 4}}}}});
    }
    data.push_back({{"title", "T" + std::to_string(a)}, {"paragraphs", {{{"context", context}, {"qas", qas}}}}});
  }
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << nlohmann::json{{"version", version}, {"data", data}}.dump();
}

std::set<std::string> titles(const SquadDataset& dataset) {
  std::set<std::string> found;
  for (const auto& q : dataset.questions) found.insert(q.title);
  return found;
}

}  // namespace

TEST_CASE("article-split divides the mirror's dev set by article: test half, eval tenth, train the rest",
          "[data][squad]") {
  const auto root = test::mirror_root();
  if (!std::filesystem::exists(root.path / "SQuAD" / "dev-v1.1.json")) {
    WARN("skipped: " << root.path / "SQuAD" / "dev-v1.1.json" << " not found (set CAPABOOST_DATA_DIR)");
    return;
  }
  const auto splits = make_squad_splits(root, SquadSplitOptions());
  CHECK(titles(splits.test).size() == 24);  // of 48 articles
  CHECK(titles(splits.eval).size() == 4);
  CHECK(titles(splits.train).size() == 20);
  CHECK(splits.train.questions.size() + splits.eval.questions.size() + splits.test.questions.size() == 10570);
  CHECK_FALSE(splits.eval_is_test);
  // Disjoint articles.
  for (const auto& title : titles(splits.test)) {
    CHECK(titles(splits.train).count(title) == 0);
    CHECK(titles(splits.eval).count(title) == 0);
  }
  CHECK(splits.files.at(0).first == "SQuAD/dev-v1.1.json");
  CHECK(splits.description.find("no article in two splits") != std::string::npos);
  // Same options, same splits and fingerprint; another seed, other articles.
  const auto again = make_squad_splits(root, SquadSplitOptions());
  CHECK(again.fingerprint == splits.fingerprint);
  CHECK(titles(again.test) == titles(splits.test));
  const auto other = make_squad_splits(root, SquadSplitOptions().seed(7));
  CHECK(other.fingerprint != splits.fingerprint);
  CHECK(titles(other.test) != titles(splits.test));
  // A training limit keeps that many questions, all from training articles.
  const auto limited = make_squad_splits(root, SquadSplitOptions().train_limit(100));
  CHECK(limited.train.questions.size() == 100);
  for (const auto& title : titles(limited.train)) CHECK(titles(splits.train).count(title) == 1);
  CHECK(limited.fingerprint != splits.fingerprint);
}

TEST_CASE("the official protocol trains on the train file and evaluates on dev, as the paper", "[data][squad]") {
  TempDir dir;
  write_squad(dir.file("SQuAD/train-v1.1.json"), 5);
  write_squad(dir.file("SQuAD/dev-v1.1.json"), 3);
  const DataRoot root{dir.path(), "given path"};
  const auto splits = make_squad_splits(root, SquadSplitOptions().protocol(SquadProtocol::kOfficial));
  CHECK(splits.train.questions.size() == 10);
  CHECK(splits.test.questions.size() == 6);
  CHECK(splits.eval.questions.size() == 6);
  CHECK(splits.eval_is_test);
  CHECK(splits.files.size() == 2);
  // v2.0 reads the v2.0 files, which are not there: one error naming them and the download script.
  CHECK_THROWS_AS(make_squad_splits(root, SquadSplitOptions().protocol(SquadProtocol::kOfficial).version(2)),
                  MissingDataError);
  CHECK_THROWS_WITH(make_squad_splits(root, SquadSplitOptions().protocol(SquadProtocol::kOfficial).version(2)),
                    Contains("train-v2.0.json") && Contains("dev-v2.0.json") && Contains("fetch_squad.sh"));
}

TEST_CASE("article-split needs three articles and names a file it cannot read", "[data][squad]") {
  TempDir dir;
  write_squad(dir.file("SQuAD/two.json"), 2);
  std::ofstream(dir.file("SQuAD/cut.json")) << R"({"version": "1.1", "data": [{"title": "T", "parag)";
  std::ofstream(dir.file("SQuAD/huge.json")) << R"({"version": 1e400, "data": []})";
  const DataRoot root{dir.path(), "given path"};
  CHECK_THROWS_WITH(make_squad_splits(root, SquadSplitOptions().split_file("two.json")),
                    Contains("2 article(s)") && Contains("at least 3"));
  CHECK_THROWS_WITH(make_squad_splits(root, SquadSplitOptions().split_file("cut.json")),
                    Contains("cut.json") && Contains("truncated download"));
  // The reader make fuzz found letting nlohmann's out_of_range (a number beyond double's range) escape.
  CHECK_THROWS_WITH(make_squad_splits(root, SquadSplitOptions().split_file("huge.json")),
                    Contains("huge.json") && Contains("not valid JSON") && Contains("1e400"));
  CHECK(parse_squad_protocol("official") == SquadProtocol::kOfficial);
  CHECK_THROWS_WITH(parse_squad_protocol("propetl"), Contains("official or article-split"));
}
