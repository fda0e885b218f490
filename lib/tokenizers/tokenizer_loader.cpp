#include "tokenizers/tokenizer_loader.h"

#include <filesystem>

#include "tokenizers/byte_level_bpe_tokenizer.h"
#include "tokenizers/deberta_v2_tokenizer.h"
#include "tokenizers/sentencepiece_tokenizer.h"
#include "tokenizers/wordpiece_tokenizer.h"

namespace capaboost {

std::shared_ptr<Tokenizer> load_tokenizer(const std::string& dir) {
  const std::filesystem::path path(dir);
  TORCH_CHECK(std::filesystem::is_directory(path), "load_tokenizer: ", dir, " is not a directory");
  if (std::filesystem::is_regular_file(path / SentencePieceTokenizer::kModelFile)) {
    // One spm.model file name, two conventions: DeBERTa's ([CLS] … [SEP]) or the suite's RoBERTa-style one.
    auto model = std::make_shared<SentencePieceModel>(
        (path / SentencePieceTokenizer::kModelFile).string(),
        "retrain it with train_sentencepiece, or use a DeBERTa-v2/v3 checkpoint's own spm.model");
    if (DebertaV2Tokenizer::recognizes(*model)) return std::make_shared<DebertaV2Tokenizer>(model);
    return SentencePieceTokenizer::from_dir(dir);
  }
  if (std::filesystem::is_regular_file(path / "vocab.json") && std::filesystem::is_regular_file(path / "merges.txt"))
    return std::make_shared<ByteLevelBpeTokenizer>(dir);
  if (std::filesystem::is_regular_file(path / WordPieceTokenizer::kVocabFile))
    return std::make_shared<WordPieceTokenizer>(dir);
  TORCH_CHECK(false, "load_tokenizer: ", dir, " holds no tokenizer: looked for ", SentencePieceTokenizer::kModelFile,
             " (SentencePiece, written by train_sentencepiece), vocab.json + merges.txt (byte-level BPE, as in a "
             "Hugging Face RoBERTa checkpoint) and vocab.txt (WordPiece, as in a BERT checkpoint)");
}

}  // namespace capaboost
