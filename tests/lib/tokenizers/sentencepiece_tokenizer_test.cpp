#include "tokenizers/sentencepiece_tokenizer.h"

#include <catch2/catch.hpp>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "lib/tokenizers/offset_properties.h"
#include "support/spm_encode.h"
#include "support/temp_dir.h"
#include "support/read_text.h"

using namespace capaboost;
using capaboost::testing::TempDir;
using Ids = std::vector<int64_t>;

using capaboost::testing::read_text;

namespace {

// Deterministic English-like training text: sentences of 5-14 words drawn from a fixed list by an LCG.
std::string synthetic_text(int lines, uint64_t state = 42) {
  static const char* const kWords[] = {
      "the",      "of",       "and",     "to",       "in",      "a",        "is",      "that",     "for",
      "it",       "as",       "was",     "with",     "be",      "by",       "on",      "not",      "he",
      "this",     "are",      "or",      "his",      "from",    "at",       "which",   "but",      "have",
      "an",       "had",      "they",    "you",      "were",    "their",    "one",     "all",      "we",
      "can",      "her",      "has",     "there",    "been",    "if",       "more",    "when",     "will",
      "would",    "who",      "so",      "no",       "people",  "government", "country", "nation",  "congress",
      "president", "law",     "state",   "union",    "war",     "peace",    "year",    "time",     "world",
      "jury",     "election", "county",  "city",     "church",  "school",   "family",  "water",    "light",
      "breathe",  "animal",   "plant",   "measure",  "public",  "interest", "policy",  "foreign",  "domestic",
      "treasury", "revenue",  "commerce", "industry", "farmer",  "worker",   "freedom", "justice",  "history",
      "science",  "question", "answer",  "morning",  "evening", "summer",   "winter",  "mountain", "river",
      "ocean",    "village",  "journey", "message",  "promise", "strength", "weakness", "thinking", "reading",
      "writing",  "quickly",  "slowly",  "carefully", "beautiful", "important", "national", "general",  "private"};
  constexpr std::size_t kCount = sizeof(kWords) / sizeof(kWords[0]);
  const auto next = [&state]() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  std::string text;
  for (int line = 0; line < lines; ++line) {
    const int words = 5 + static_cast<int>(next() % 10);
    std::string sentence;
    for (int w = 0; w < words; ++w) {
      if (w > 0) sentence += next() % 9 == 0 ? ", " : " ";
      sentence += kWords[next() % kCount];
    }
    sentence[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(sentence[0])));
    text += sentence + ".\n";
  }
  return text;
}

void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

SentencePieceTrainOptions small_options() { return SentencePieceTrainOptions().vocab_size(300); }

// One model shared by the tests that only read it (training is the slow part).
struct TrainedModel {
  TempDir dir;
  std::shared_ptr<SentencePieceTokenizer> tokenizer;
  TrainedModel() {
    write(dir.file("train.txt"), synthetic_text(1500));
    train_sentencepiece(dir.file("train.txt"), dir.file("tok"), small_options());
    tokenizer = SentencePieceTokenizer::from_dir(dir.file("tok"));
  }
};

const TrainedModel& trained() {
  static const TrainedModel model;
  return model;
}

}  // namespace

TEST_CASE("SentencePiece special ids follow RoBERTa", "[tokenizers][sentencepiece]") {
  const SentencePieceTokenizer& tok = *trained().tokenizer;
  CHECK(tok.vocab_size() == 300);
  CHECK(tok.id_to_piece(0) == "<s>");
  CHECK(tok.id_to_piece(1) == "<pad>");
  CHECK(tok.id_to_piece(2) == "</s>");
  CHECK(tok.id_to_piece(3) == "<unk>");
  CHECK(tok.id_to_piece(4) == "<mask>");
  CHECK(tok.bos_id() == 0);
  CHECK(tok.pad_id() == 1);
  CHECK(tok.eos_id() == 2);
  CHECK(tok.unk_id() == 3);
  CHECK(tok.mask_id() == 4);
  CHECK(tok.special_ids() == Ids{0, 1, 2, 3, 4});
  // Ordinary text never produces a special id; the text "<mask>" is the mask token.
  for (const int64_t id : tok.encode_text("The people of the nation breathe freedom.")) CHECK(id > 4);
  const Ids masked = tok.encode_text("The <mask> of the nation");
  CHECK(std::count(masked.begin(), masked.end(), 4) == 1);
  // Characters never seen in training are unknown.
  const Ids unknown = tok.encode_text("\xe6\x97\xa5");  // U+65E5
  CHECK(std::count(unknown.begin(), unknown.end(), 3) == 1);
  CHECK_THROWS_WITH(tok.id_to_piece(300), Catch::Contains("outside"));
}

TEST_CASE("SentencePiece frames single texts and pairs as RoBERTa", "[tokenizers][sentencepiece]") {
  const SentencePieceTokenizer& tok = *trained().tokenizer;
  const Ids a = tok.encode_text("The jury said.");
  const Ids b = tok.encode_text("Peace and justice.");
  Ids single = {0};
  single.insert(single.end(), a.begin(), a.end());
  single.push_back(2);
  CHECK(tok.add_special_tokens(a, std::nullopt) == single);
  Ids pair = single;
  pair.push_back(2);
  pair.insert(pair.end(), b.begin(), b.end());
  pair.push_back(2);
  CHECK(tok.add_special_tokens(a, b) == pair);
  CHECK(tok.num_special_tokens(false) == 2);
  CHECK(tok.num_special_tokens(true) == 4);
  CHECK(tok.encode("The jury said.", std::string_view("Peace and justice.")).input_ids == pair);
  // Truncation and padding come from the shared Tokenizer code.
  const auto batch = tok.encode_batch({"The jury said.", "The people"}, EncodeOptions().truncation(true).max_length(4));
  CHECK(batch.input_ids.size(1) <= 4);
  CHECK(batch.input_ids[0][0].item<int64_t>() == 0);
}

TEST_CASE("SentencePiece decode restores encoded text", "[tokenizers][sentencepiece]") {
  const SentencePieceTokenizer& tok = *trained().tokenizer;
  for (const std::string text : {"The people of the nation breathe freedom.", "Winter, summer and history.",
                                 "Congress has been thinking carefully about foreign policy."}) {
    CHECK(tok.decode(tok.encode_text(text)) == text);
  }
  const Ids framed = tok.add_special_tokens(tok.encode_text("The jury said."), tok.encode_text("Peace."));
  CHECK(tok.decode(framed) == "<s> The jury said. </s> </s> Peace. </s>");
  CHECK(tok.decode(framed, /*skip_special_tokens=*/true) == "The jury said. Peace.");
  CHECK(tok.decode({}) == "");
  CHECK_THROWS_WITH(tok.decode({5, 9999}), Catch::Contains("9999"));
  CHECK(tok.tokenize("the nation").front().rfind("\xe2\x96\x81", 0) == 0);  // pieces start with U+2581
}

TEST_CASE("SentencePiece training is deterministic and independent of the input location", "[tokenizers][sentencepiece]") {
  TempDir dir;
  const std::string text = synthetic_text(800, 7);
  write(dir.file("a.txt"), text);
  std::filesystem::create_directories(dir.path() / "elsewhere");
  write(dir.file("elsewhere/b.txt"), text);
  train_sentencepiece(dir.file("a.txt"), dir.file("tok_a"), small_options().vocab_size(200));
  train_sentencepiece(dir.file("elsewhere/b.txt"), dir.file("tok_b"), small_options().vocab_size(200));
  const std::string model = read_text(dir.file("tok_a/spm.model"));
  CHECK(model.size() > 1000);
  CHECK(model == read_text(dir.file("tok_b/spm.model")));
  CHECK(read_text(dir.file("tok_a/tokenizer_config.json")) == read_text(dir.file("tok_b/tokenizer_config.json")));

  // Sampling a subset of the lines is seeded: repeating it gives the same model.
  const auto sampled = small_options().vocab_size(200).input_sentence_size(300);
  train_sentencepiece(dir.file("a.txt"), dir.file("s1"), sampled);
  train_sentencepiece(dir.file("a.txt"), dir.file("s2"), sampled);
  CHECK(read_text(dir.file("s1/spm.model")) == read_text(dir.file("s2/spm.model")));
  CHECK(read_text(dir.file("s1/spm.model")) != model);
}

TEST_CASE("SentencePiece writes a tokenizer config naming class and special tokens", "[tokenizers][sentencepiece]") {
  const auto config = nlohmann::json::parse(read_text(trained().dir.file("tok/tokenizer_config.json")));
  CHECK(config["tokenizer_class"] == "SentencePieceTokenizer");
  CHECK(config["model_file"] == "spm.model");
  CHECK(config["vocab_size"] == 300);
  CHECK(config["special_tokens"]["mask_token"]["id"] == 4);
  CHECK(config["special_tokens"]["pad_token"]["text"] == "<pad>");
  CHECK(config["training"]["model_type"] == "unigram");
  CHECK(config["training"]["text_sha256"].get<std::string>().size() == 64);
}

TEST_CASE("SentencePiece errors name the file and the fix", "[tokenizers][sentencepiece]") {
  TempDir dir;
  CHECK_THROWS_WITH(SentencePieceTokenizer::from_dir(dir.path().string()),
                    Catch::Contains("spm.model") && Catch::Contains("train_sentencepiece"));
  write(dir.file("spm.model"), "not a model");
  CHECK_THROWS_WITH(SentencePieceTokenizer::from_dir(dir.path().string()), Catch::Contains("not a valid SentencePiece model"));
  CHECK_THROWS_WITH(train_sentencepiece(dir.file("missing.txt"), dir.file("tok"), small_options()),
                    Catch::Contains("missing.txt"));
  CHECK_THROWS_WITH(train_sentencepiece(dir.file("spm.model"), dir.file("tok"), small_options().vocab_size(5)),
                    Catch::Contains("vocab_size"));
}

TEST_CASE("SentencePiece encoder agrees with spm_encode for unigram and BPE models", "[tokenizers][sentencepiece]") {
  TempDir dir;
  std::string text = synthetic_text(300, 11);
  // Lines with what the training text never had: unknown characters, odd spacing, the mask symbol.
  text += "  Peace   and \xe6\x97\xa5\xe6\x9c\xac justice  \nThe <mask> of the nation.\nzzq xj\n\n";
  write(dir.file("probe.txt"), text);
  std::vector<std::string> lines;
  {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  for (const char* model_type : {"unigram", "bpe"}) {
    INFO(model_type);
    const std::string out = dir.file(std::string("tok_") + model_type);
    train_sentencepiece(dir.file("probe.txt"), out, small_options().vocab_size(200).model_type(model_type));
    const auto expected = capaboost::testing::spm_encode_lines(out + "/spm.model", dir.file("probe.txt"), dir.file("ids.txt"));
    if (!expected) {
      WARN("skipped: spm_encode is not installed (Debian package sentencepiece: make deps)");
      return;
    }
    const auto tokenizer = SentencePieceTokenizer::from_dir(out);
    REQUIRE(expected->size() == lines.size());
    int64_t same = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) same += tokenizer->encode_text(lines[i]) == (*expected)[i];
    CHECK(same == static_cast<int64_t>(lines.size()));
  }
}

TEST_CASE("SentencePiece offsets: each piece spans its characters, U+2581 none", "[tokenizers][sentencepiece]") {
  const auto& tokenizer = *trained().tokenizer;
  const auto tokens = tokenizer.encode_text_with_offsets("The world");
  REQUIRE_FALSE(tokens.empty());
  // Whatever the segmentation, the pieces of "The" end at 3 and those of "world" start at 4.
  std::string spelled;
  for (const auto& token : tokens) {
    std::string piece = tokenizer.id_to_piece(token.id);
    if (piece.rfind("\xe2\x96\x81", 0) == 0) piece.erase(0, 3);  // the visible space spans nothing
    CHECK(code_point_count(piece) == token.end - token.begin);
    spelled += piece;
  }
  CHECK(spelled == "Theworld");
  CHECK(tokens.front().begin == 0);
  CHECK(tokens.back().end == 9);
  for (const std::string text : {std::string("  Peace   and \xe6\x97\xa5\xe6\x9c\xac justice  "), std::string("The <mask> of the nation."),
                                 std::string("zzq xj"), std::string(""), std::string("   "), synthetic_text(20, 5)}) {
    capaboost::testing::check_offset_properties(tokenizer, text, /*spans_trim_whitespace=*/true);
  }
}
