#pragma once
// The two-neighbour count baseline of MLM evaluation: predict a token from the tokens on its left and
// right by counting, in the training blocks, which token most often sits between that pair. It learns
// local context and nothing else, so an encoder whose accuracy at <mask> stays below it has not yet
// learnt to use even its immediate neighbours (issue #14).
//
//   NeighbourCountModel counts(train_ids, masker.maskable(train_ids), vocab_size, unigram_token);
//   auto guess = counts.predict(masked_input_ids);  // (B, T): a guess at every position

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace capaboost {

class NeighbourCountModel {
 public:
  /// Counts, over every position of `blocks` (N, T) int64 where `centres` (N, T) bool is true, the
  /// centre id per (left, right) neighbour pair, per left neighbour and per right neighbour. A block's
  /// first and last positions have no left/right neighbour (their own "edge" context). Ids must lie in
  /// [0, vocab_size); `fallback` is predicted where no context was ever seen (the unigram token).
  NeighbourCountModel(const torch::Tensor& blocks, const torch::Tensor& centres, int64_t vocab_size,
                      int64_t fallback);

  /// The most frequent centre between each position's neighbours in `input_ids` (B, T) — as shown to
  /// the model, so a masked or replaced neighbour counts as what it shows. Backs off from the pair to
  /// the left neighbour alone, then the right alone, then `fallback`; ties go to the smaller id.
  /// → (B, T) int64.
  torch::Tensor predict(const torch::Tensor& input_ids) const;

 private:
  // Contexts (packed neighbour ids, sorted) and the most frequent centre of each.
  struct Table {
    std::vector<int64_t> contexts;
    std::vector<int64_t> best;
    /// best[i] for contexts[i] == context, or -1 when the context never occurred.
    int64_t lookup(int64_t context) const;
  };
  static Table build(std::vector<int64_t> packed, int64_t base);

  int64_t base_;  // vocab_size + 1: ids, plus the "edge" id
  int64_t fallback_;
  Table pairs_, lefts_, rights_;
};

}  // namespace capaboost
