#pragma once
// Shared by the trainer tests: the RoBERTa tokenizer from the offline data mirror, a tiny encoder
// and small GLUE slices.

#include <memory>

#include "../data/glue_test_support.h"
#include "data/eval_protocol.h"
#include "models/roberta.h"
#include "tokenizers/byte_level_bpe_tokenizer.h"

namespace capaboost::test {

/// roberta-base's tokenizer files in the mirror, or empty when absent.
inline std::filesystem::path roberta_tokenizer_dir() {
  const auto dir = mirror_root().path / "tokenizers" / "roberta-base";
  return std::filesystem::exists(dir / "vocab.json") ? dir : std::filesystem::path();
}

inline std::shared_ptr<ByteLevelBpeTokenizer> roberta_tokenizer() {
  return std::make_shared<ByteLevelBpeTokenizer>(roberta_tokenizer_dir().string());
}

/// A 2-layer, 32-wide RoBERTa with roberta-base's vocabulary, randomly initialised.
inline BertOptions tiny_encoder(int64_t num_labels) {
  return roberta_options()
      .hidden_size(32)
      .num_hidden_layers(2)
      .num_attention_heads(4)
      .intermediate_size(64)
      .max_position_embeddings(130)
      .num_labels(num_labels);
}

/// The first `n` training examples (ProPETL protocol order) and the eval/test halves of dev.
inline Splits small_splits(const std::string& task, int64_t n) {
  return make_glue_splits(glue_task(task), mirror_root(), SplitOptions().max_train_examples(n));
}

}  // namespace capaboost::test

/// Skips the calling test when the mirror lacks the task or the tokenizer files.
#define REQUIRE_MIRROR_AND_TOKENIZER(task)                                                    \
  REQUIRE_MIRROR(task);                                                                       \
  if (capaboost::test::roberta_tokenizer_dir().empty()) {                                     \
    WARN("skipped: tokenizers/roberta-base not found under " << capaboost::test::mirror_root().path \
                                                              << " (set CAPABOOST_DATA_DIR)"); \
    return;                                                                                   \
  }
