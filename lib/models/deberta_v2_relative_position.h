#pragma once
// DeBERTa's relative positions between query position i and key position j, as transformers 4.30.2
// builds them: r = i − j, bucketed logarithmically beyond half the bucket count.
//
// With m = bucket_size / 2: |r| < m keeps r (|r| = m too); beyond, r maps to
//   sign(r) · (⌈ log(|r| / m) / log((max_position − 1) / m) · (m − 1) ⌉ + m),
// so distances up to max_position − 1 share the buckets m … 2m − 1 (sign aside) on a log scale.

#include <torch/torch.h>

namespace capaboost {

/// The bucketed distance of every entry of `relative` (any shape, int64) for `bucket_size` buckets and
/// positions up to `max_position`; int64, same shape.
torch::Tensor log_bucket_positions(const torch::Tensor& relative, int64_t bucket_size, int64_t max_position);

/// (query_size, key_size) int64: i − j, bucketed with log_bucket_positions when bucket_size > 0 and
/// max_position > 0 (DeBERTaV3), raw otherwise.
torch::Tensor deberta_relative_positions(int64_t query_size, int64_t key_size, int64_t bucket_size,
                                         int64_t max_position);

}  // namespace capaboost
