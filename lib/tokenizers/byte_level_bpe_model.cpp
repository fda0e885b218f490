#include "tokenizers/byte_level_bpe_model.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <limits>

#include "tokenizers/byte_unicode.h"
#include "tokenizers/utf8.h"

namespace capaboost {

namespace {

uint64_t merge_key(int32_t left, int32_t right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
}

}  // namespace

ByteLevelBpeModel::ByteLevelBpeModel(std::vector<std::string> tokens, const std::vector<ByteLevelBpeMerge>& merges,
                                     const ByteLevelBpeSource& source, std::optional<int32_t> unknown_id)
    : vocabulary_name_(source.vocabulary), tokens_(std::move(tokens)) {
  TORCH_CHECK(!tokens_.empty(), source.vocabulary, " has no tokens; ", source.fix);
  TORCH_CHECK(tokens_.size() < static_cast<std::size_t>(std::numeric_limits<int32_t>::max()) &&
                  merges.size() < static_cast<std::size_t>(std::numeric_limits<int32_t>::max()),
              source.vocabulary, " has too many tokens or merges for 32-bit ids");
  token_ids_.reserve(tokens_.size());
  token_bytes_.resize(tokens_.size());
  token_decodable_.assign(tokens_.size(), true);
  for (std::size_t id = 0; id < tokens_.size(); ++id) {
    const std::string& token = tokens_[id];
    const auto ill_formed = first_ill_formed_utf8(token);
    TORCH_CHECK(!ill_formed, source.vocabulary, ": token ", id, " is not valid UTF-8 (byte offset ",
                ill_formed.value_or(0), "); ", source.fix);
    const auto [it, inserted] = token_ids_.emplace(token, static_cast<int64_t>(id));
    TORCH_CHECK(inserted, source.vocabulary, " holds token \"", token, "\" twice, as ids ", it->second, " and ", id,
                "; ", source.fix);
    for (std::size_t pos = 0; pos < token.size();) {
      const Utf8CodePoint cp = decode_utf8_at(token, pos);
      const auto byte = unicode_to_byte(cp.cp);
      if (!byte) {
        token_decodable_[id] = false;
        break;
      }
      token_bytes_[id] += static_cast<char>(*byte);
      pos += cp.length;
    }
  }
  if (unknown_id) {
    TORCH_CHECK(*unknown_id >= 0 && *unknown_id < size(), "the unknown token id ", *unknown_id, " is outside ",
                source.vocabulary, " [0, ", size(), ")");
  }
  for (int b = 0; b < 256; ++b) {
    const std::string symbol = byte_symbol(static_cast<uint8_t>(b));
    const auto id = find(symbol);
    TORCH_CHECK(id || unknown_id, source.vocabulary, " has no token \"", symbol,
                fmt::format("\" (the byte-level symbol of byte 0x{:02X})", b),
                ", and no unknown token stands in for missing byte symbols; ", source.fix);
    byte_known_[b] = id.has_value();
    byte_ids_[b] = static_cast<int32_t>(id ? *id : *unknown_id);
  }

  merges_.reserve(merges.size());
  for (std::size_t rank = 0; rank < merges.size(); ++rank) {
    const ByteLevelBpeMerge& merge = merges[rank];
    const auto left = find(merge.left), right = find(merge.right), merged = find(merge.left + merge.right);
    const std::string& missing = !left ? merge.left : !right ? merge.right : merge.left + merge.right;
    TORCH_CHECK(left && right && merged, source.merge(rank), " (\"", merge.left, " ", merge.right, "\"): \"", missing,
                "\" is not a token of ", source.vocabulary,
                " (a merge's symbols and their concatenation must all be tokens); ", source.fix);
    // A repeated merge keeps its last rank, as HF's dict(zip(merges, range(...))).
    merges_[merge_key(static_cast<int32_t>(*left), static_cast<int32_t>(*right))] = {static_cast<int32_t>(rank),
                                                                                     static_cast<int32_t>(*merged)};
  }
}

std::optional<int64_t> ByteLevelBpeModel::find(const std::string& token) const {
  const auto it = token_ids_.find(token);
  if (it == token_ids_.end()) return std::nullopt;
  return it->second;
}

const std::string& ByteLevelBpeModel::token(int64_t id) const {
  TORCH_CHECK(id >= 0 && id < size(), "id ", id, " is outside the vocabulary [0, ", size(), ") of ", vocabulary_name_);
  return tokens_[static_cast<std::size_t>(id)];
}

template <typename Emit>
void ByteLevelBpeModel::for_each_symbol(std::string_view piece, Emit&& emit) const {
  if (piece.size() == 1) {
    emit(Symbol{byte_ids_[static_cast<unsigned char>(piece[0])], 1});
    return;
  }
  std::string key(piece);
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    const auto it = cache_.find(key);
    if (it != cache_.end()) {
      for (const Symbol& symbol : it->second) emit(symbol);
      return;
    }
  }
  std::vector<Symbol> merged = apply_merges(piece);
  for (const Symbol& symbol : merged) emit(symbol);
  std::lock_guard<std::mutex> lock(cache_mutex_);
  if (cache_.size() >= kCacheCapacity) cache_.clear();
  cache_.emplace(std::move(key), std::move(merged));
}

void ByteLevelBpeModel::append_piece(std::string_view piece, std::vector<Symbol>& symbols) const {
  for_each_symbol(piece, [&](const Symbol& symbol) { symbols.push_back(symbol); });
}

void ByteLevelBpeModel::append_piece_ids(std::string_view piece, std::vector<int64_t>& ids) const {
  for_each_symbol(piece, [&](const Symbol& symbol) { ids.push_back(symbol.id); });
}

std::vector<ByteLevelBpeModel::Symbol> ByteLevelBpeModel::apply_merges(std::string_view piece) const {
  // One symbol per byte, consecutive bytes without a symbol of their own fused into one unknown token;
  // then repeatedly merge every occurrence (left to right, non-overlapping) of the adjacent pair with the
  // best rank.
  std::vector<Symbol> symbols;
  symbols.reserve(piece.size());
  bool previous_unknown = false;
  for (const char c : piece) {
    const auto b = static_cast<unsigned char>(c);
    if (!byte_known_[b] && previous_unknown) {
      ++symbols.back().bytes;
      continue;
    }
    symbols.push_back({byte_ids_[b], 1});
    previous_unknown = !byte_known_[b];
  }
  while (symbols.size() > 1) {
    const Merge* best = nullptr;
    uint64_t best_key = 0;
    for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
      const uint64_t key = merge_key(symbols[i].id, symbols[i + 1].id);
      const auto it = merges_.find(key);
      if (it != merges_.end() && (best == nullptr || it->second.rank < best->rank)) {
        best = &it->second;
        best_key = key;
      }
    }
    if (best == nullptr) break;
    std::size_t out = 0;
    for (std::size_t i = 0; i < symbols.size(); ++out) {
      if (i + 1 < symbols.size() && merge_key(symbols[i].id, symbols[i + 1].id) == best_key) {
        symbols[out] = {best->merged_id, symbols[i].bytes + symbols[i + 1].bytes};
        i += 2;
      } else {
        symbols[out] = symbols[i];
        i += 1;
      }
    }
    symbols.resize(out);
  }
  return symbols;
}

}  // namespace capaboost
