#pragma once
// SQuAD questions turned into model inputs as Hugging Face's run_qa.py prepares them
// (prepare_train_features / prepare_validation_features): the question (left-stripped) first, the
// context cut into windows of at most max_length framed tokens that overlap by doc_stride tokens, each
// window one feature with its tokens' character spans in the context, and training labels pointing at
// the answer's first and last token, or at the first (CLS) token when the window does not hold the whole
// answer or the question has none (SQuAD v2.0).
//
//   auto features = make_squad_features(dataset.questions, tokenizer, SquadFeatureOptions().max_length(128).doc_stride(32));
//   features[0].input_ids     // <s> question </s></s> context window </s>
//   features[0].offsets[i]    // characters [begin, end) of the context, {-1, -1} outside the context

#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "data/squad_dataset.h"
#include "tokenizers/tokenizer.h"

namespace capaboost {

struct SquadFeatureOptions {
  /// Framed tokens per feature (question, context window and special tokens).
  TORCH_ARG(int64_t, max_length) = 384;
  /// Tokens two consecutive windows of one context share.
  TORCH_ARG(int64_t, doc_stride) = 128;
};

/// A token's characters in the context; {-1, -1} for question, special and padding tokens.
using CharSpan = std::pair<int64_t, int64_t>;

struct SquadFeature {
  int64_t question = 0;  ///< index of its question in the list the features were made from
  std::vector<int64_t> input_ids;
  /// Leading ids of token type 0 (the question and its framing), when the tokenizer returns token types
  /// (Tokenizer::first_segment_length); the context window and its framing are type 1.
  std::optional<int64_t> first_segment;
  std::vector<CharSpan> offsets;  ///< one per input id
  /// Token positions of the answer (the first answer's, as run_qa trains); 0, the first token, when the
  /// window does not hold it or there is none.
  int64_t start_position = 0;
  int64_t end_position = 0;
};

/// Features of `questions`, in order (every question has at least one). Fails, naming the question,
/// when a question leaves no room for a window longer than doc_stride, or when an answer's span lies
/// outside its context.
std::vector<SquadFeature> make_squad_features(const std::vector<SquadQuestion>& questions, const Tokenizer& tokenizer,
                                              const SquadFeatureOptions& options);

}  // namespace capaboost
