#include "tokenizers/sentencepiece_model.h"

#include <c10/util/Exception.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace capaboost {
namespace {

constexpr std::string_view kMetaspace = "\xe2\x96\x81";  // U+2581, SentencePiece's visible space
// SentencePiece's penalty for an unknown character in the unigram lattice (unigram_model.cc kUnkPenalty).
constexpr float kUnkPenalty = 10.0f;

std::size_t utf8_length(uint8_t lead) { return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4; }

// The bytes of one well-formed UTF-8 character at the start of `text`, or 0 when malformed.
std::size_t valid_utf8_prefix(std::string_view text) {
  const auto lead = static_cast<uint8_t>(text[0]);
  if (lead < 0x80) return 1;
  if (lead < 0xC2 || lead > 0xF4) return 0;
  const std::size_t length = utf8_length(lead);
  if (text.size() < length) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((static_cast<uint8_t>(text[i]) & 0xC0) != 0x80) return 0;
  }
  return length;
}

// The few ModelProto fields the tokenizers need (sentencepiece_model.proto):
// ModelProto { repeated SentencePiece pieces = 1; TrainerSpec trainer_spec = 2; NormalizerSpec normalizer_spec = 3; }
// SentencePiece { string piece = 1; float score = 2; Type type = 3; }   TrainerSpec { ModelType model_type = 3; }
// NormalizerSpec { string name = 1; bytes precompiled_charsmap = 2; bool add_dummy_prefix = 3;
//                  bool remove_extra_whitespaces = 4; bool escape_whitespaces = 5; }
class ProtoReader {
 public:
  ProtoReader(std::string_view data, const std::string& file, const std::string& fix) : data_(data), file_(file), fix_(fix) {}
  bool done() const { return pos_ >= data_.size(); }
  uint64_t varint() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      check(pos_ < data_.size());
      const uint8_t byte = static_cast<uint8_t>(data_[pos_++]);
      value |= static_cast<uint64_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    check(false);
    return 0;
  }
  std::string_view bytes() {
    const uint64_t size = varint();
    check(size <= data_.size() - pos_);
    const std::string_view out = data_.substr(pos_, size);
    pos_ += size;
    return out;
  }
  float fixed32_float() {
    check(data_.size() - pos_ >= 4);
    uint32_t bits = 0;
    for (int i = 3; i >= 0; --i) bits = (bits << 8) | static_cast<uint8_t>(data_[pos_ + i]);  // little-endian
    pos_ += 4;
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    return value;
  }
  void skip(uint32_t wire_type) {
    switch (wire_type) {
      case 0: varint(); break;
      case 1: check(data_.size() - pos_ >= 8); pos_ += 8; break;
      case 2: bytes(); break;
      case 5: check(data_.size() - pos_ >= 4); pos_ += 4; break;
      default: check(false);
    }
  }

 private:
  void check(bool ok) const {
    TORCH_CHECK(ok, file_, " is not a valid SentencePiece model (malformed protobuf); ", fix_);
  }
  std::string_view data_;
  const std::string& file_;
  const std::string& fix_;
  std::size_t pos_ = 0;
};

}  // namespace

SentencePieceModel::SentencePieceModel(const std::string& model_file, const std::string& fix) : model_file_(model_file) {
  TORCH_CHECK(std::filesystem::is_regular_file(model_file), model_file, " does not exist; ", fix);
  std::ifstream in(model_file, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string data = buffer.str();
  int64_t model_type = 1;  // proto default UNIGRAM
  std::string charsmap;
  ProtoReader model(data, model_file, fix);
  while (!model.done()) {
    const uint64_t tag = model.varint();
    const uint32_t field = static_cast<uint32_t>(tag >> 3), wire = static_cast<uint32_t>(tag & 7);
    if (field == 1 && wire == 2) {
      Piece piece;
      ProtoReader message(model.bytes(), model_file, fix);
      while (!message.done()) {
        const uint64_t t = message.varint();
        if (t == (1 << 3 | 2)) piece.text = std::string(message.bytes());
        else if (t == (2 << 3 | 5)) piece.score = message.fixed32_float();
        else if (t == (3 << 3 | 0)) piece.type = static_cast<PieceType>(message.varint());
        else message.skip(static_cast<uint32_t>(t & 7));
      }
      pieces_.push_back(std::move(piece));
    } else if (field == 2 && wire == 2) {
      ProtoReader spec(model.bytes(), model_file, fix);
      while (!spec.done()) {
        const uint64_t t = spec.varint();
        if (t == (3 << 3 | 0)) model_type = static_cast<int64_t>(spec.varint());
        else spec.skip(static_cast<uint32_t>(t & 7));
      }
    } else if (field == 3 && wire == 2) {
      ProtoReader spec(model.bytes(), model_file, fix);
      while (!spec.done()) {
        const uint64_t t = spec.varint();
        if (t == (1 << 3 | 2)) normalizer_name_ = std::string(spec.bytes());
        else if (t == (2 << 3 | 2)) charsmap = std::string(spec.bytes());
        else if (t == (3 << 3 | 0)) add_dummy_prefix_ = spec.varint() != 0;
        else if (t == (4 << 3 | 0)) remove_extra_whitespaces_ = spec.varint() != 0;
        else if (t == (5 << 3 | 0)) escape_whitespaces_ = spec.varint() != 0;
        else spec.skip(static_cast<uint32_t>(t & 7));
      }
    } else {
      model.skip(wire);
    }
  }
  TORCH_CHECK(model_type == 1 || model_type == 2, model_file, " has model type ", model_type,
              "; only unigram (1) and BPE (2) are supported; ", fix);
  bpe_ = model_type == 2;
  // An identity model carries no character map; any other normaliser must bring one (custom rule TSVs
  // are compiled into it by spm_train).
  if (!charsmap.empty()) charsmap_ = std::make_unique<PrecompiledCharsmap>(charsmap, model_file);
  TORCH_CHECK(charsmap_ || normalizer_name_ == "identity", model_file, " uses the \"", normalizer_name_,
              "\" normaliser without a precompiled character map; ", fix);

  bool has_unknown = false;
  min_score_ = std::numeric_limits<float>::max();
  trie_.emplace_back();
  for (int64_t id = 0; id < size(); ++id) {
    const Piece& piece = pieces_[id];
    by_text_.emplace(piece.text, id);
    if (piece.type == PieceType::kUnknown && !has_unknown) {
      unk_id_ = id;
      has_unknown = true;
    }
    if (piece.type != PieceType::kNormal && piece.type != PieceType::kUserDefined) continue;
    TORCH_CHECK(!piece.text.empty(), model_file, " has an empty piece at id ", id, "; ", fix);
    if (piece.type == PieceType::kNormal) min_score_ = std::min(min_score_, piece.score);
    matchable_.emplace(piece.text, id);
    int32_t node = 0;
    for (const char c : piece.text) {
      int32_t child = trie_child(node, static_cast<uint8_t>(c));
      if (child < 0) {
        child = static_cast<int32_t>(trie_.size());
        trie_[node].children.emplace_back(static_cast<uint8_t>(c), child);
        trie_.emplace_back();
      }
      node = child;
    }
    trie_[node].id = static_cast<int32_t>(id);
  }
  TORCH_CHECK(has_unknown, model_file, " has no unknown piece; ", fix);
  if (min_score_ == std::numeric_limits<float>::max()) min_score_ = 0.0f;
}

const std::string& SentencePieceModel::piece(int64_t id) const {
  TORCH_CHECK(id >= 0 && id < size(), "SentencePiece id ", id, " outside [0, ", size(), ") of ", model_file_);
  return pieces_[id].text;
}

SentencePieceModel::PieceType SentencePieceModel::type(int64_t id) const {
  TORCH_CHECK(id >= 0 && id < size(), "SentencePiece id ", id, " outside [0, ", size(), ") of ", model_file_);
  return pieces_[id].type;
}

std::optional<int64_t> SentencePieceModel::find(const std::string& text) const {
  const auto it = by_text_.find(text);
  return it == by_text_.end() ? std::nullopt : std::optional<int64_t>(it->second);
}

int32_t SentencePieceModel::trie_child(int32_t node, uint8_t byte) const {
  for (const auto& [b, child] : trie_[node].children) {
    if (b == byte) return child;
  }
  return -1;
}

std::string SentencePieceModel::normalize(std::string_view text) const {
  return charsmap_ ? normalize_with_charsmap(text) : normalize_identity(text);
}

std::string SentencePieceModel::normalize_identity(std::string_view text, Alignment* alignment) const {
  // Identity normalisation leaves characters alone; only spaces change. ASCII whitespace other than
  // ' ' counts as a space too (SentencePiece's identity rule would keep a tab as an unknown character).
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  std::string out;
  out.reserve(text.size() + text.size() / 4 + 3);
  const auto metaspace_at = [&](std::size_t position) {
    out += kMetaspace;
    if (alignment) alignment->insert(alignment->end(), kMetaspace.size(), {position, position});
  };
  bool pending_space = false;
  std::size_t space_at = 0;  // where the pending whitespace run started
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (is_space(c) && remove_extra_whitespaces_) {
      if (!pending_space) space_at = i;
      pending_space = true;  // a run of spaces: one U+2581 if more text follows, none at either end
      continue;
    }
    if (out.empty() && add_dummy_prefix_) metaspace_at(i);
    if (pending_space && out.size() > (add_dummy_prefix_ ? kMetaspace.size() : 0)) metaspace_at(space_at);
    pending_space = false;
    if (is_space(c)) {
      metaspace_at(i);
    } else {
      out += c;
      if (alignment) alignment->emplace_back(i, i + 1);
    }
  }
  return out;
}

std::pair<std::string_view, std::size_t> SentencePieceModel::normalize_prefix(std::string_view text) const {
  // A user-defined symbol passes through untouched (SentencePiece's prefix matcher).
  std::size_t symbol = 0;
  int32_t node = 0;
  for (std::size_t end = 0; end < text.size();) {
    node = trie_child(node, static_cast<uint8_t>(text[end]));
    if (node < 0) break;
    ++end;
    if (trie_[node].id >= 0 && pieces_[trie_[node].id].type == PieceType::kUserDefined) symbol = end;
  }
  if (symbol > 0) return {text.substr(0, symbol), symbol};
  if (const auto rule = charsmap_->longest_prefix(text)) return *rule;
  const std::size_t length = valid_utf8_prefix(text);
  // A malformed byte becomes U+FFFD, consuming that one byte.
  if (length == 0) return {"\xEF\xBF\xBD", 1};
  return {text.substr(0, length), length};
}

std::string SentencePieceModel::normalize_with_charsmap(std::string_view text, Alignment* alignment) const {
  // SentencePiece's Normalizer::Normalize, step for step; `position` is where `text` now starts in the
  // input, so every output byte can name the input bytes of the rule that produced it.
  const std::string_view space = escape_whitespaces_ ? kMetaspace : std::string_view(" ");
  std::size_t position = 0;
  if (remove_extra_whitespaces_) {
    while (!text.empty()) {
      const auto [unit, consumed] = normalize_prefix(text);
      if (unit != " ") break;
      text.remove_prefix(consumed);
      position += consumed;
    }
  }
  std::string out;
  if (text.empty()) return out;
  if (add_dummy_prefix_) {
    out += space;
    if (alignment) alignment->insert(alignment->end(), space.size(), {position, position});
  }
  bool previous_space = remove_extra_whitespaces_;
  while (!text.empty()) {
    auto [unit, consumed] = normalize_prefix(text);
    while (previous_space && !unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
    if (!unit.empty()) {
      for (const char c : unit) {
        const std::string_view emitted = escape_whitespaces_ && c == ' ' ? kMetaspace : std::string_view(&c, 1);
        out += emitted;
        if (alignment) {
          const bool whitespace = c == ' ';
          alignment->insert(alignment->end(), emitted.size(),
                            whitespace ? std::pair{position, position} : std::pair{position, position + consumed});
        }
      }
      previous_space = unit.back() == ' ';
    }
    text.remove_prefix(consumed);
    position += consumed;
    previous_space = previous_space && remove_extra_whitespaces_;
  }
  if (remove_extra_whitespaces_) {
    while (out.size() >= space.size() && out.compare(out.size() - space.size(), space.size(), space) == 0) {
      out.resize(out.size() - space.size());
      if (alignment) alignment->resize(out.size());
    }
  }
  return out;
}

void SentencePieceModel::encode_unigram(std::string_view s, std::vector<int64_t>& ids, Spans* spans) const {
  // Viterbi over the lattice of pieces: best[i] is the best total score of a segmentation of s[0, i).
  // User-defined symbols score 0, above any normal piece's (negative) log-probability, so they win.
  // Whether a position is reached is from[i] >= 0, not a score: a model's scores may be -inf or NaN, or
  // sum to -inf, and every reached position must still reach the next, or the walk back from n breaks.
  const std::size_t n = s.size();
  constexpr float kNone = -std::numeric_limits<float>::infinity();
  std::vector<float> best(n + 1, kNone);
  std::vector<int32_t> from(n + 1, -1), piece(n + 1, -1);
  best[0] = 0.0f;
  const auto improves = [&](std::size_t end, float score) { return from[end] < 0 || score > best[end]; };
  for (std::size_t start = 0; start < n; ++start) {
    if (start > 0 && from[start] < 0) continue;
    const std::size_t char_bytes = utf8_length(static_cast<uint8_t>(s[start]));
    bool single_char_piece = false;
    int32_t node = 0;
    for (std::size_t end = start; end < n;) {
      node = trie_child(node, static_cast<uint8_t>(s[end]));
      if (node < 0) break;
      ++end;
      const int32_t id = trie_[node].id;
      if (id < 0) continue;
      const float score = best[start] + (pieces_[id].type == PieceType::kUserDefined ? 0.0f : pieces_[id].score);
      if (end == start + char_bytes) single_char_piece = true;
      if (improves(end, score)) {
        best[end] = score;
        from[end] = static_cast<int32_t>(start);
        piece[end] = id;
      }
    }
    if (!single_char_piece) {
      const std::size_t end = std::min(n, start + char_bytes);
      const float score = best[start] + min_score_ - kUnkPenalty;
      if (improves(end, score)) {
        best[end] = score;
        from[end] = static_cast<int32_t>(start);
        piece[end] = static_cast<int32_t>(unk_id_);
      }
    }
  }
  std::vector<std::size_t> ends;
  for (std::size_t end = n; end > 0; end = static_cast<std::size_t>(from[end])) ends.push_back(end);
  for (auto it = ends.rbegin(); it != ends.rend(); ++it) {
    const int64_t id = piece[*it];
    // Consecutive unknown characters become one unknown piece, as in SentencePiece.
    if (id == unk_id_ && !ids.empty() && ids.back() == unk_id_) {
      if (spans) spans->back().second = *it;
      continue;
    }
    ids.push_back(id);
    if (spans) spans->emplace_back(static_cast<std::size_t>(from[*it]), *it);
  }
}

void SentencePieceModel::encode_bpe(std::string_view s, std::vector<int64_t>& ids, Spans* spans) const {
  // Symbols start as characters (a user-defined symbol is one symbol); the adjacent pair whose
  // concatenation is the best-scoring piece merges first, leftmost on ties, until no pair is a piece.
  struct Symbol {
    std::size_t begin, size;
  };
  std::vector<Symbol> symbols;
  for (std::size_t pos = 0; pos < s.size();) {
    std::size_t size = 0;
    int32_t node = 0;
    for (std::size_t end = pos; end < s.size();) {  // longest user-defined symbol starting here
      node = trie_child(node, static_cast<uint8_t>(s[end]));
      if (node < 0) break;
      ++end;
      if (trie_[node].id >= 0 && pieces_[trie_[node].id].type == PieceType::kUserDefined) size = end - pos;
    }
    if (size == 0) size = std::min(s.size() - pos, utf8_length(static_cast<uint8_t>(s[pos])));
    symbols.push_back({pos, size});
    pos += size;
  }
  while (symbols.size() > 1) {
    std::size_t best_index = symbols.size();
    float best_score = -std::numeric_limits<float>::infinity();
    for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
      const auto it = matchable_.find(s.substr(symbols[i].begin, symbols[i].size + symbols[i + 1].size));
      if (it == matchable_.end() || pieces_[it->second].type != PieceType::kNormal) continue;
      if (pieces_[it->second].score > best_score) {
        best_score = pieces_[it->second].score;
        best_index = i;
      }
    }
    if (best_index == symbols.size()) break;
    symbols[best_index].size += symbols[best_index + 1].size;
    symbols.erase(symbols.begin() + static_cast<std::ptrdiff_t>(best_index) + 1);
  }
  for (const Symbol& symbol : symbols) {
    const auto it = matchable_.find(s.substr(symbol.begin, symbol.size));
    const int64_t id = it == matchable_.end() ? unk_id_ : it->second;
    if (id == unk_id_ && !ids.empty() && ids.back() == unk_id_) {
      if (spans) spans->back().second = symbol.begin + symbol.size;
      continue;
    }
    ids.push_back(id);
    if (spans) spans->emplace_back(symbol.begin, symbol.begin + symbol.size);
  }
}

std::vector<int64_t> SentencePieceModel::encode(std::string_view text) const {
  const std::string normalized = normalize(text);
  std::vector<int64_t> ids;
  ids.reserve(normalized.size() / 3 + 1);
  if (bpe_) encode_bpe(normalized, ids);
  else encode_unigram(normalized, ids);
  return ids;
}

std::vector<SentencePieceModel::ByteSpan> SentencePieceModel::encode_with_spans(std::string_view text) const {
  Alignment alignment;
  const std::string normalized = charsmap_ ? normalize_with_charsmap(text, &alignment) : normalize_identity(text, &alignment);
  std::vector<int64_t> ids;
  Spans spans;
  if (bpe_) encode_bpe(normalized, ids, &spans);
  else encode_unigram(normalized, ids, &spans);
  std::vector<ByteSpan> result;
  result.reserve(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    // The input bytes behind the piece's normalised bytes; whitespace alone leaves an empty span.
    std::size_t begin = SIZE_MAX, end = 0;
    for (std::size_t b = spans[i].first; b < spans[i].second; ++b) {
      const auto [from, to] = alignment[b];
      if (from == to) continue;
      begin = std::min(begin, from);
      end = std::max(end, to);
    }
    if (begin == SIZE_MAX) begin = end = alignment[spans[i].first].first;
    result.push_back({ids[i], begin, end});
  }
  return result;
}

std::string SentencePieceModel::decode(const std::vector<int64_t>& ids) const {
  std::string run;
  for (const int64_t id : ids) run += piece(id);
  std::string text;
  text.reserve(run.size());
  for (std::size_t pos = 0; pos < run.size();) {
    if (run.compare(pos, kMetaspace.size(), kMetaspace) == 0) {
      text += ' ';
      pos += kMetaspace.size();
    } else {
      text += run[pos++];
    }
  }
  // The dummy prefix added at encoding is not part of the text.
  if (add_dummy_prefix_ && !text.empty() && text.front() == ' ') text.erase(0, 1);
  return text;
}

std::string decode_with_specials(const SentencePieceModel& model, const std::vector<int64_t>& ids,
                                 const std::function<std::optional<std::string>(int64_t)>& special_text,
                                 bool skip_special_tokens) {
  std::string out;
  std::vector<int64_t> run;  // consecutive ordinary ids
  const auto append = [&out](const std::string& segment) {
    if (segment.empty()) return;
    if (!out.empty()) out += ' ';
    out += segment;
  };
  const auto flush = [&]() {
    if (run.empty()) return;
    append(model.decode(run));
    run.clear();
  };
  for (const int64_t id : ids) {
    if (const auto text = special_text(id)) {
      flush();
      if (!skip_special_tokens) append(*text);
    } else {
      run.push_back(id);
    }
  }
  flush();
  return out;
}

}  // namespace capaboost
