#include "data/squad_features.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include "lib/data/glue_test_support.h"
#include "lib/tokenizers/tiny_bpe_dir.h"
#include "metrics/squad_postprocess.h"
#include "tokenizers/byte_level_bpe_tokenizer.h"

using namespace capaboost;
using capaboost::testing::TinyBpeDir;
using Catch::Contains;

namespace {

SquadQuestion question(std::string context, std::string text, int64_t start, std::string asked = "hello") {
  SquadQuestion q;
  q.id = "q";
  q.question = std::move(asked);
  q.context = std::move(context);
  if (start >= 0) q.answers.push_back({std::move(text), start});
  return q;
}

}  // namespace

TEST_CASE("a context that fits is one window: <s> question </s></s> context </s>, answer tokens labelled",
          "[data][squad]") {
  TinyBpeDir dir;
  ByteLevelBpeTokenizer tokenizer(dir.path());
  // Context tokens: "the" (0,3), "Ġworld" (4,9), "Ġhello" (10,15); the question is one token.
  const auto features = make_squad_features({question("the world hello", "world", 4, "  hello")}, tokenizer,
                                            SquadFeatureOptions().max_length(8).doc_stride(1));
  REQUIRE(features.size() == 1);
  const auto& f = features[0];
  // The question's leading spaces are stripped, as run_qa does.
  CHECK(f.input_ids == std::vector<int64_t>{0, dir.id("hello"), 2, 2, dir.id("the"), dir.id("Ġworld"), dir.id("Ġhello"), 2});
  CHECK(f.offsets == std::vector<CharSpan>{{-1, -1}, {-1, -1}, {-1, -1}, {-1, -1}, {0, 3}, {4, 9}, {10, 15}, {-1, -1}});
  CHECK(f.start_position == 5);
  CHECK(f.end_position == 5);
  // An answer over two tokens, and an answer cut mid-token ("orl"): the tokens that hold it.
  const auto two = make_squad_features({question("the world hello", "world hello", 4)}, tokenizer,
                                       SquadFeatureOptions().max_length(8).doc_stride(1));
  CHECK(two[0].start_position == 5);
  CHECK(two[0].end_position == 6);
  const auto inside = make_squad_features({question("the world hello", "orl", 5)}, tokenizer,
                                          SquadFeatureOptions().max_length(8).doc_stride(1));
  CHECK(inside[0].start_position == 5);
  CHECK(inside[0].end_position == 5);
  // The answer in the last token of the window: labelled there (run_qa's loop would run past it).
  const auto last = make_squad_features({question("the world hello", "hello", 10)}, tokenizer,
                                        SquadFeatureOptions().max_length(8).doc_stride(1));
  CHECK(last[0].start_position == 6);
  CHECK(last[0].end_position == 6);
}

TEST_CASE("long contexts become windows overlapping by doc_stride; a window without the whole answer points at CLS",
          "[data][squad]") {
  TinyBpeDir dir;
  ByteLevelBpeTokenizer tokenizer(dir.path());
  // "a b c d": tokens a (0,1), Ġ (2,2), b (2,3), Ġ (4,4), c (4,5), Ġ (6,6), d (6,7) (the tiny vocabulary
  // has no "Ġb"; a lone space's span is empty after trimming): seven; a window
  // holds 9 − 1 − 4 = 4 of them, and consecutive windows share 2: [0, 4), [2, 6), [4, 7).
  const auto features = make_squad_features({question("a b c d", "c", 4)}, tokenizer,
                                            SquadFeatureOptions().max_length(9).doc_stride(2));
  REQUIRE(features.size() == 3);
  CHECK(features[0].offsets[4] == CharSpan{0, 1});
  CHECK(features[1].offsets[4] == CharSpan{2, 3});
  CHECK(features[2].offsets[4] == CharSpan{4, 5});
  CHECK(features[2].input_ids.size() == 8);  // the last window holds the remaining three tokens
  for (const auto& f : features) CHECK(f.question == 0);
  // "c" is in windows 2 and 3 (token 4 of the context), not in window 1.
  CHECK(features[0].start_position == 0);
  CHECK(features[0].end_position == 0);
  CHECK(features[1].start_position == 4 + 2);
  CHECK(features[2].start_position == 4 + 0);
  CHECK(features[2].end_position == 4 + 0);
  // v2.0: no answer points at CLS in every window.
  for (const auto& f : make_squad_features({question("a b c d", "", -1)}, tokenizer,
                                           SquadFeatureOptions().max_length(9).doc_stride(2))) {
    CHECK(f.start_position == 0);
    CHECK(f.end_position == 0);
  }
}

TEST_CASE("features refuse questions that leave no room and answers outside their context", "[data][squad]") {
  TinyBpeDir dir;
  ByteLevelBpeTokenizer tokenizer(dir.path());
  CHECK_THROWS_WITH(make_squad_features({question("a b c d", "c", 4, "a long question")}, tokenizer,
                                        SquadFeatureOptions().max_length(9).doc_stride(2)),
                    Contains("SQuAD question q") && Contains("raise max_length or lower doc_stride"));
  CHECK_THROWS_WITH(make_squad_features({question("a b", "b c", 2)}, tokenizer, SquadFeatureOptions()),
                    Contains("lies outside its context"));
}

// The real tokenizer on the whole dev set, at the mini profile's 128/32: every labelled window's span
// holds its answer, and all but a handful of questions are labelled in some window.
TEST_CASE("on SQuAD dev with roberta-base's tokenizer every labelled span holds its answer", "[data][squad]") {
  const auto root = test::mirror_root().path;
  if (!std::filesystem::exists(root / "SQuAD" / "dev-v1.1.json") ||
      !std::filesystem::exists(root / "tokenizers" / "roberta-base" / "vocab.json")) {
    WARN("skipped: SQuAD dev or roberta-base's tokenizer not under " << root << " (set CAPABOOST_DATA_DIR)");
    return;
  }
  const auto dataset = load_squad((root / "SQuAD" / "dev-v1.1.json").string());
  ByteLevelBpeTokenizer tokenizer((root / "tokenizers" / "roberta-base").string());
  const auto features = make_squad_features(dataset.questions, tokenizer, SquadFeatureOptions().max_length(128).doc_stride(32));
  std::map<int64_t, int> labelled;
  int64_t windows_over_one = 0;
  for (const auto& f : features) {
    REQUIRE(f.input_ids.size() <= 128);
    if (f.start_position == 0) continue;
    const auto& q = dataset.questions[static_cast<size_t>(f.question)];
    REQUIRE(f.start_position <= f.end_position);
    const std::string span = code_point_substr(q.context, f.offsets[f.start_position].first, f.offsets[f.end_position].second);
    if (span.find(q.answers.front().text) == std::string::npos) {
      FAIL_CHECK("question " << q.id << ": labelled span '" << span << "' misses '" << q.answers.front().text << "'");
    }
    ++labelled[f.question];
  }
  for (const auto& [question, count] : labelled) windows_over_one += count > 1;
  INFO(features.size() << " windows for " << dataset.questions.size() << " questions; " << labelled.size()
                       << " labelled, " << windows_over_one << " in more than one window");
  CHECK(features.size() > dataset.questions.size());  // long contexts make several windows
  CHECK(labelled.size() >= dataset.questions.size() - 10);
  CHECK(windows_over_one > 0);
}
