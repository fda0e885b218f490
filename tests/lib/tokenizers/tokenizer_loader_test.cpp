#include "tokenizers/tokenizer_loader.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "lib/tokenizers/tiny_bpe_dir.h"
#include "support/temp_dir.h"
#include "tokenizers/byte_level_bpe_tokenizer.h"
#include "tokenizers/sentencepiece_tokenizer.h"

using namespace capaboost;
using capaboost::testing::TempDir;

TEST_CASE("load_tokenizer picks SentencePiece for spm.model", "[tokenizers][loader]") {
  TempDir dir;
  {
    std::ofstream text(dir.file("text.txt"));
    for (int i = 0; i < 300; ++i)
      text << "line " << i << " of the small training text about peace, law and the nation " << i * 7 << ".\n";
  }
  train_sentencepiece(dir.file("text.txt"), dir.file("tok"), SentencePieceTrainOptions().vocab_size(60));
  const auto tokenizer = load_tokenizer(dir.file("tok"));
  const auto* spm = dynamic_cast<const SentencePieceTokenizer*>(tokenizer.get());
  REQUIRE(spm != nullptr);
  CHECK(tokenizer->vocab_size() == 60);
  CHECK(tokenizer->mask_id() == 4);
  CHECK(tokenizer->decode(tokenizer->encode_text("the nation")) == "the nation");
}

TEST_CASE("load_tokenizer picks byte-level BPE for vocab.json and merges.txt", "[tokenizers][loader]") {
  capaboost::testing::TinyBpeDir bpe;
  const auto tokenizer = load_tokenizer(bpe.path());
  REQUIRE(dynamic_cast<const ByteLevelBpeTokenizer*>(tokenizer.get()) != nullptr);
  CHECK(tokenizer->encode_text("hello") == std::vector<int64_t>{bpe.id("hello")});
}

TEST_CASE("load_tokenizer lists the files it looked for", "[tokenizers][loader]") {
  TempDir dir;
  std::ofstream(dir.file("vocab.json")) << "{}";  // half a BPE tokenizer is none
  CHECK_THROWS_WITH(load_tokenizer(dir.path().string()), Catch::Contains("spm.model") &&
                                                             Catch::Contains("vocab.json") &&
                                                             Catch::Contains("merges.txt"));
  CHECK_THROWS_WITH(load_tokenizer(dir.file("absent")), Catch::Contains("not a directory"));
}
