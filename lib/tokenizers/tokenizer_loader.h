#pragma once
// One entry point for loading whichever tokenizer a checkpoint directory carries, so fine-tuning works
// the same on Hugging Face RoBERTa and BERT checkpoints and on the suite's own SentencePiece pre-training.

#include <memory>
#include <string>

#include "tokenizers/tokenizer.h"

namespace capaboost {

/// The tokenizer stored in `dir`, by the first of these files it holds: spm.model → DebertaV2Tokenizer
/// when the model has a [CLS] piece, else SentencePieceTokenizer; vocab.json + merges.txt →
/// ByteLevelBpeTokenizer (RoBERTa); vocab.txt → WordPieceTokenizer (BERT, with the options of its
/// tokenizer.json and tokenizer_config.json). None → an error listing the files looked for.
std::shared_ptr<Tokenizer> load_tokenizer(const std::string& dir);

}  // namespace capaboost
