#include "pretrain/neighbour_count_model.h"

#include <algorithm>

namespace capaboost {
namespace {

// Neighbours of position t in a row of length T, with `edge` outside the row.
int64_t left_of(const int64_t* row, int64_t t, int64_t edge) { return t > 0 ? row[t - 1] : edge; }
int64_t right_of(const int64_t* row, int64_t t, int64_t length, int64_t edge) {
  return t + 1 < length ? row[t + 1] : edge;
}

}  // namespace

NeighbourCountModel::NeighbourCountModel(const torch::Tensor& blocks, const torch::Tensor& centres,
                                         int64_t vocab_size, int64_t fallback)
    : base_(vocab_size + 1), fallback_(fallback) {
  TORCH_CHECK(blocks.dim() == 2 && blocks.sizes() == centres.sizes(),
              "NeighbourCountModel: blocks and centres must both be (N, T), got ", blocks.sizes(), " and ",
              centres.sizes());
  TORCH_CHECK(vocab_size > 0 && vocab_size < (int64_t{1} << 20),
              "NeighbourCountModel: vocab_size must be in (0, 2^20) so three ids pack into 64 bits, got ",
              vocab_size);
  const auto ids = blocks.to(torch::kLong).contiguous();
  const auto is_centre = centres.to(torch::kBool).contiguous();
  TORCH_CHECK(ids.numel() == 0 || (ids.min().item<int64_t>() >= 0 && ids.max().item<int64_t>() < vocab_size),
              "NeighbourCountModel: block ids must lie in [0, ", vocab_size, ")");
  const int64_t rows = ids.size(0), length = ids.size(1), edge = vocab_size;
  // Each (context, centre) occurrence is one packed int64; sorting groups a context's centres together.
  std::vector<int64_t> pairs, lefts, rights;
  const auto* data = ids.data_ptr<int64_t>();
  const auto* keep = is_centre.data_ptr<bool>();
  for (int64_t n = 0; n < rows; ++n) {
    const int64_t* row = data + n * length;
    for (int64_t t = 0; t < length; ++t) {
      if (!keep[n * length + t]) continue;
      const int64_t left = left_of(row, t, edge), right = right_of(row, t, length, edge), centre = row[t];
      pairs.push_back((left * base_ + right) * base_ + centre);
      lefts.push_back(left * base_ + centre);
      rights.push_back(right * base_ + centre);
    }
  }
  pairs_ = build(std::move(pairs), base_);
  lefts_ = build(std::move(lefts), base_);
  rights_ = build(std::move(rights), base_);
}

NeighbourCountModel::Table NeighbourCountModel::build(std::vector<int64_t> packed, int64_t base) {
  std::sort(packed.begin(), packed.end());
  Table table;
  int64_t best_count = 0;
  for (size_t begin = 0; begin < packed.size();) {
    size_t end = begin;
    while (end < packed.size() && packed[end] == packed[begin]) ++end;
    const int64_t context = packed[begin] / base, centre = packed[begin] % base;
    const auto count = static_cast<int64_t>(end - begin);
    // Centres of one context arrive in increasing id order: replacing only on a strictly larger count
    // keeps the smaller id on ties.
    if (table.contexts.empty() || table.contexts.back() != context) {
      table.contexts.push_back(context);
      table.best.push_back(centre);
      best_count = count;
    } else if (count > best_count) {
      table.best.back() = centre;
      best_count = count;
    }
    begin = end;
  }
  return table;
}

int64_t NeighbourCountModel::Table::lookup(int64_t context) const {
  const auto it = std::lower_bound(contexts.begin(), contexts.end(), context);
  if (it == contexts.end() || *it != context) return -1;
  return best[static_cast<size_t>(it - contexts.begin())];
}

torch::Tensor NeighbourCountModel::predict(const torch::Tensor& input_ids) const {
  TORCH_CHECK(input_ids.dim() == 2, "NeighbourCountModel: input_ids must be (B, T), got ", input_ids.sizes());
  const auto ids = input_ids.to(torch::kLong).contiguous();
  auto out = torch::empty_like(ids);
  const int64_t rows = ids.size(0), length = ids.size(1), edge = base_ - 1;
  const auto* data = ids.data_ptr<int64_t>();
  auto* guess = out.data_ptr<int64_t>();
  // An id outside the vocabulary (none should be) is treated as an unseen neighbour.
  const auto known = [&](int64_t id) { return id >= 0 && id <= edge; };
  for (int64_t n = 0; n < rows; ++n) {
    const int64_t* row = data + n * length;
    for (int64_t t = 0; t < length; ++t) {
      const int64_t left = left_of(row, t, edge), right = right_of(row, t, length, edge);
      int64_t prediction = -1;
      if (known(left) && known(right)) prediction = pairs_.lookup(left * base_ + right);
      if (prediction < 0 && known(left)) prediction = lefts_.lookup(left);
      if (prediction < 0 && known(right)) prediction = rights_.lookup(right);
      guess[n * length + t] = prediction < 0 ? fallback_ : prediction;
    }
  }
  return out;
}

}  // namespace capaboost
