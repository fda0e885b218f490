#pragma once
// One entry point for loading whichever tokenizer a checkpoint directory carries, so fine-tuning works
// the same on Hugging Face RoBERTa checkpoints and on the suite's own SentencePiece pre-training.

#include <memory>
#include <string>

#include "tokenizers/tokenizer.h"

namespace capaboost {

/// The tokenizer stored in `dir`: spm.model → SentencePieceTokenizer; vocab.json + merges.txt →
/// ByteLevelBpeTokenizer (RoBERTa). Neither → an error listing the files looked for.
std::shared_ptr<Tokenizer> load_tokenizer(const std::string& dir);

}  // namespace capaboost
