#pragma once
// Pre-training text as fixed-length blocks of token ids, as transformers' run_mlm.py without
// --line_by_line (group_texts): every line is encoded and framed "<s> line </s>", the lines are
// concatenated in file order, and the stream is cut into blocks of exactly block_size ids; the
// incomplete tail is dropped.
//
// Why packing rather than one line per row: the corpus lines are sentences of ~25 tokens, so
// line-by-line rows of length 128 would be ~80% padding, and padding costs the full attention and
// feed-forward compute while teaching nothing. Packed blocks contain no padding (every position is
// trained on), and the framing tokens keep sentence boundaries visible, as RoBERTa's FULL-SENTENCES
// input format does.
//
//   auto blocks = encode_text_blocks(tokenizer, "train.txt", TextBlockOptions().block_size(128));
//   // blocks.ids: (num_blocks, 128) int64

#include <torch/torch.h>

#include <cstdint>
#include <string>

#include "tokenizers/tokenizer.h"

namespace capaboost {

struct TextBlockOptions {
  /// Ids per block (the model's sequence length; at most max_position_embeddings − 2 for RoBERTa).
  TORCH_ARG(int64_t, block_size) = 128;
  /// Stop after this many blocks (0 = the whole file): small slices for smoke runs and tests.
  TORCH_ARG(int64_t, max_blocks) = 0;
};

/// A tokenized, packed text file.
struct TextBlocks {
  torch::Tensor ids;        ///< (num_blocks, block_size) int64
  int64_t lines = 0;        ///< non-empty lines encoded
  int64_t tokens = 0;       ///< ids produced before the tail was dropped (framing included)
  std::string source_path;  ///< the file read
};

/// Encodes `path` (UTF-8, one sentence or paragraph per line; empty lines skipped) with `tokenizer`
/// and packs it. Deterministic: the same file and tokenizer give the same blocks. Throws naming the file
/// when it cannot be read or yields not even one block.
TextBlocks encode_text_blocks(const Tokenizer& tokenizer, const std::string& path,
                              const TextBlockOptions& options = {});

}  // namespace capaboost
