// DeBERTa's tokenizer on SentencePiece models trained the way DeBERTaV3's was (Debian's spm_train:
// [PAD] [CLS] [SEP] [UNK] at ids 0-3, nmt_nfkc normalisation with its precompiled character map),
// checked against SentencePiece's own encoder (spm_encode) on text that exercises the character map
// (ligatures, full-width and circled forms, combining accents, control characters, whitespace runs),
// and against hand-written framing cases. The genuine 128k spm.model cannot be fetched here.

#include "tokenizers/deberta_v2_tokenizer.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "lib/tokenizers/offset_properties.h"
#include "support/spm_encode.h"
#include "support/temp_dir.h"
#include "tokenizers/tokenizer_loader.h"

using namespace capaboost;
using capaboost::testing::TempDir;
using Ids = std::vector<int64_t>;

namespace {

bool have(const char* program) { return std::system((std::string("command -v ") + program + " > /dev/null").c_str()) == 0; }

// Sentences over a small vocabulary, some with the characters the probes use.
std::string training_text() {
  static const char* const kWords[] = {"the", "model", "reads", "fine", "text", "with", "full", "width", "café", "naïve",
                                       "résumé", "over", "one", "two", "three", "numbers", "and", "signs", "of", "a",
                                       "long", "journey", "into", "wordpieces", "question", "answer", "deep", "learning"};
  std::string text;
  uint64_t state = 7;
  for (int line = 0; line < 1500; ++line) {
    for (int w = 0; w < 8; ++w) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      text += std::string(w ? " " : "") + kWords[(state >> 33) % (sizeof(kWords) / sizeof(kWords[0]))];
    }
    text += line % 7 == 0 ? " ① ﬁ Ｆｕｌｌ ™ x² Å.\n" : ".\n";
  }
  return text;
}

// Trains `model_type` with DeBERTaV3's conventions into dir/spm.model; false when spm_train is absent.
bool train(const TempDir& dir, const std::string& model_type) {
  std::ofstream(dir.file("train.txt"), std::ios::binary) << training_text();
  const std::string command =
      "cd '" + dir.path().string() + "' && spm_train --input=train.txt --model_prefix=spm --model_type=" + model_type +
      " --vocab_size=80 --character_coverage=0.9995 --pad_id=0 --pad_piece=[PAD] --bos_id=1 --bos_piece=[CLS]"
      " --eos_id=2 --eos_piece=[SEP] --unk_id=3 --unk_piece=[UNK] --normalization_rule_name=nmt_nfkc"
      " --minloglevel=2 > train.log 2>&1";
  return std::system(command.c_str()) == 0;
}

// SentencePiece's own ids for each line of `probes`.
std::vector<Ids> spm_encode(const TempDir& dir, const std::vector<std::string>& probes) {
  {
    std::ofstream out(dir.file("probes.txt"), std::ios::binary);
    for (const auto& probe : probes) out << probe << "\n";
  }
  auto lines = capaboost::testing::spm_encode_lines(dir.file("spm.model"), dir.file("probes.txt"), dir.file("ids.txt"));
  REQUIRE(lines);
  return *lines;
}

const std::vector<std::string>& probes() {
  static const std::vector<std::string> texts{
      "the model reads fine text",
      "  leading and   inner   spaces and trailing  ",
      "ﬁne ligature and ﬀ",                   // NFKC splits ligatures
      "Ｆｕｌｌ ｗｉｄｔｈ １２３",          // full-width forms
      "circled ① ② and x² and ™",             // compatibility characters
      "cafe\xcc\x81 composed by NFKC: café",  // e + combining acute → é
      "tab\tand\fform feed",                  // control whitespace
      "Ångström and ÅÅ",                      // A + ring above / angstrom sign
      "unknown 漢字 and ʬ symbols",
      "a",
      "!!!???...",
  };
  return texts;
}

}  // namespace

TEST_CASE("DeBERTa tokenizer agrees with spm_encode on nmt_nfkc models", "[tokenizers][deberta]") {
  if (!have("spm_train") || !have("spm_encode")) {
    WARN("skipped: spm_train/spm_encode not installed (Debian package sentencepiece: make deps)");
    return;
  }
  for (const std::string model_type : {"unigram", "bpe"}) {
    INFO("model type " << model_type);
    TempDir dir;
    REQUIRE(train(dir, model_type));
    const auto tokenizer = DebertaV2Tokenizer::from_dir(dir.path().string());
    const auto expected = spm_encode(dir, probes());
    REQUIRE(expected.size() == probes().size());
    for (size_t i = 0; i < probes().size(); ++i) {
      INFO("probe " << i << ": " << probes()[i]);
      CHECK(tokenizer->encode_text(probes()[i]) == expected[i]);
    }
  }
}

TEST_CASE("DeBERTa tokenizer frames, adds [MASK] after the vocabulary and decodes", "[tokenizers][deberta]") {
  if (!have("spm_train")) {
    WARN("skipped: spm_train not installed (Debian package sentencepiece: make deps)");
    return;
  }
  TempDir dir;
  REQUIRE(train(dir, "unigram"));
  const auto loaded = load_tokenizer(dir.path().string());  // picks the DeBERTa convention by its pieces
  const auto tokenizer = std::dynamic_pointer_cast<DebertaV2Tokenizer>(loaded);
  REQUIRE(tokenizer);
  CHECK(tokenizer->pad_id() == 0);
  CHECK(tokenizer->cls_id() == 1);
  CHECK(tokenizer->sep_id() == 2);
  CHECK(tokenizer->unk_id() == 3);
  CHECK(tokenizer->mask_id() == 80);  // as transformers adds [MASK] to DeBERTaV3's 128k model: id 128000
  CHECK(tokenizer->vocab_size() == 81);

  const auto a = tokenizer->encode_text("the model");
  const auto b = tokenizer->encode_text("reads text");
  Ids single{1};
  single.insert(single.end(), a.begin(), a.end());
  single.push_back(2);
  CHECK(tokenizer->encode("the model").input_ids == single);
  Ids pair = single;
  pair.insert(pair.end(), b.begin(), b.end());
  pair.push_back(2);
  CHECK(tokenizer->encode("the model", std::string_view("reads text")).input_ids == pair);
  // longest_first truncation keeps the framing: [CLS] a [SEP] b [SEP] in 6 ids.
  const auto truncated = tokenizer->encode("the model reads fine text", std::string_view("one two three"),
                                           EncodeOptions().truncation(true).max_length(6));
  CHECK(truncated.input_ids.size() == 6);
  CHECK(truncated.input_ids.front() == 1);
  CHECK(truncated.input_ids.back() == 2);

  // Special tokens in the text encode to their ids; the ▁ word boundary starts each word.
  const auto with_mask = tokenizer->encode_text("the [MASK] reads");
  CHECK(std::count(with_mask.begin(), with_mask.end(), 80) == 1);
  CHECK(tokenizer->tokenize("the model").front().rfind("\xe2\x96\x81", 0) == 0);
  CHECK(tokenizer->decode(tokenizer->encode("the model reads fine text").input_ids) ==
        "[CLS] the model reads fine text [SEP]");
  CHECK(tokenizer->decode(tokenizer->encode("the model").input_ids, /*skip_special_tokens=*/true) == "the model");
}

TEST_CASE("DeBERTa offsets follow nmt_nfkc's alignment back to the original characters", "[tokenizers][deberta]") {
  if (!have("spm_train")) {
    WARN("skipped: spm_train not installed (Debian package sentencepiece: make deps)");
    return;
  }
  for (const std::string model_type : {"unigram", "bpe"}) {
    INFO("model type " << model_type);
    TempDir dir;
    REQUIRE(train(dir, model_type));
    const auto tokenizer = DebertaV2Tokenizer::from_dir(dir.path().string());
    for (const auto& probe : probes()) capaboost::testing::check_offset_properties(*tokenizer, probe, true);
    capaboost::testing::check_offset_properties(*tokenizer, "the [CLS] model [MASK]text", true);
    // "Ｆｕｌｌ" normalises to "Full": its pieces still span the four full-width characters.
    const auto full = tokenizer->encode_text_with_offsets("Ｆｕｌｌ");
    REQUIRE_FALSE(full.empty());
    CHECK(full.front().begin == 0);
    CHECK(full.back().end == 4);
    const auto special = tokenizer->encode_text_with_offsets("the [CLS] model");
    bool found = false;
    for (const auto& token : special) {
      if (token.id != tokenizer->cls_id()) continue;
      found = true;
      CHECK(token.begin == 4);
      CHECK(token.end == 9);
    }
    CHECK(found);
  }
}
