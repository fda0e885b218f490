#include "tokenizers/byte_level_bpe_tokenizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "tokenizers/bpe_files.h"
#include "tokenizers/byte_unicode.h"
#include "tokenizers/gpt2_pretokenizer.h"
#include "tokenizers/unicode_class.h"
#include "tokenizers/utf8.h"

namespace capaboost {

namespace {

uint64_t pair_key(int32_t left, int32_t right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
}

// Python's str.rstrip(): AddedToken(lstrip=True) strips the text segment before the token with it.
std::string_view rstrip_python_space(std::string_view text) {
  while (!text.empty()) {
    const Utf8CodePoint last = decode_last_utf8(text);
    if (!is_python_space(last.cp)) break;
    text.remove_suffix(last.length);
  }
  return text;
}

}  // namespace

ByteLevelBpeTokenizer::ByteLevelBpeTokenizer(const std::string& directory,
                                             const ByteLevelBpeOptions& options_)
    : options(options_), directory_(directory) {
  BpeFiles files = read_bpe_files(directory);
  tokens_ = std::move(files.tokens);
  token_ids_.reserve(tokens_.size());
  token_bytes_.resize(tokens_.size());
  token_decodable_.assign(tokens_.size(), true);
  for (std::size_t id = 0; id < tokens_.size(); ++id) {
    const std::string& token = tokens_[id];
    token_ids_.emplace(token, static_cast<int64_t>(id));
    // vocab.json strings are valid UTF-8 (the JSON parser checks); each character must stand for a byte.
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
  for (int b = 0; b < 256; ++b) {
    byte_ids_[b] = static_cast<int32_t>(required_id(
        byte_symbol(static_cast<uint8_t>(b)), fmt::format("the byte-level symbol of byte 0x{:02X}", b)));
  }

  bos_id_ = required_id("<s>", "RoBERTa's bos/cls token");
  pad_id_ = required_id("<pad>", "RoBERTa's padding token");
  eos_id_ = required_id("</s>", "RoBERTa's eos/sep token");
  unk_id_ = required_id("<unk>", "RoBERTa's unknown token");
  mask_id_ = required_id("<mask>", "RoBERTa's mask token");
  specials_ = {{"<s>", bos_id_, false},
               {"<pad>", pad_id_, false},
               {"</s>", eos_id_, false},
               {"<unk>", unk_id_, false},
               {"<mask>", mask_id_, true}};
  for (const auto& special : specials_)
    special_first_bytes_[static_cast<unsigned char>(special.text[0])] = true;

  TORCH_CHECK(files.merges.size() < static_cast<std::size_t>(std::numeric_limits<int32_t>::max()), directory,
              "/merges.txt has too many merges");
  merges_.reserve(files.merges.size());
  for (std::size_t rank = 0; rank < files.merges.size(); ++rank) {
    const BpeMerge& merge = files.merges[rank];
    const std::string where =
        fmt::format("{}/merges.txt line {} (\"{} {}\")", directory, merge.line, merge.left, merge.right);
    const auto left = token_ids_.find(merge.left);
    const auto right = token_ids_.find(merge.right);
    const auto merged = token_ids_.find(merge.left + merge.right);
    TORCH_CHECK(
        left != token_ids_.end() && right != token_ids_.end() && merged != token_ids_.end(), where,
        ": the symbols and their concatenation must all be tokens of vocab.json; the two files do not "
        "belong together");
    // A repeated merge keeps its last rank, as HF's dict(zip(merges, range(...))).
    merges_[pair_key(static_cast<int32_t>(left->second), static_cast<int32_t>(right->second))] = {
        static_cast<int32_t>(rank), static_cast<int32_t>(merged->second)};
  }
}

int64_t ByteLevelBpeTokenizer::required_id(const std::string& token, const std::string& why) const {
  const auto it = token_ids_.find(token);
  TORCH_CHECK(
      it != token_ids_.end(), directory_, "/vocab.json has no token \"", token, "\" (", why,
      "); use the vocab.json of a byte-level BPE model with RoBERTa's special tokens (e.g. roberta-base)");
  return it->second;
}

int64_t ByteLevelBpeTokenizer::token_to_id(const std::string& token) const {
  const auto it = token_ids_.find(token);
  TORCH_CHECK(it != token_ids_.end(), "token \"", token, "\" is not in ", directory_, "/vocab.json");
  return it->second;
}

const std::string& ByteLevelBpeTokenizer::id_to_token(int64_t id) const {
  TORCH_CHECK(id >= 0 && id < vocab_size(), "id ", id, " is outside the vocabulary [0, ", vocab_size(),
              ") of ", directory_);
  return tokens_[static_cast<std::size_t>(id)];
}

std::vector<int64_t> ByteLevelBpeTokenizer::encode_text(std::string_view text) const {
  check_utf8(text, "tokenizer input");
  std::string prefixed;
  if (options.add_prefix_space() && !text.empty() && !is_python_space(decode_utf8_at(text, 0).cp)) {
    prefixed = " ";
    prefixed += text;
    text = prefixed;
  }
  std::vector<int64_t> ids;
  ids.reserve(text.size() / 3 + 2);
  // Split around special tokens first (HF's added-tokens trie: leftmost, then longest match).
  std::size_t segment_start = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    const SpecialToken* found = nullptr;
    if (special_first_bytes_[static_cast<unsigned char>(text[pos])]) {
      for (const auto& special : specials_) {
        if (text.compare(pos, special.text.size(), special.text) == 0 &&
            (found == nullptr || special.text.size() > found->text.size())) {
          found = &special;
        }
      }
    }
    if (found == nullptr) {
      ++pos;
      continue;
    }
    std::string_view segment = text.substr(segment_start, pos - segment_start);
    if (found->lstrip) segment = rstrip_python_space(segment);
    append_segment_ids(segment, ids);
    ids.push_back(found->id);
    pos += found->text.size();
    segment_start = pos;
  }
  append_segment_ids(text.substr(segment_start), ids);
  return ids;
}

std::vector<TokenOffsets> ByteLevelBpeTokenizer::encode_text_with_offsets(std::string_view text) const {
  const std::vector<int64_t> ids = encode_text(text);
  const bool prefixed = options.add_prefix_space() && !text.empty() && !is_python_space(decode_utf8_at(text, 0).cp);
  // before[b]: code points starting before byte b, so the character holding byte b is before[b + 1] − 1
  // and a token ending at byte e (exclusive) ends at character before[e], whole characters either way.
  const std::vector<int64_t> before = code_points_before(text);
  // Byte positions run from −1 when a prefix space was added: that space is no byte of the text.
  const auto byte_at = [&](int64_t pos) { return pos < 0 ? ' ' : text[static_cast<std::size_t>(pos)]; };
  const auto char_at = [&](int64_t pos) { return pos < 0 ? int64_t{0} : before[static_cast<std::size_t>(pos) + 1] - 1; };
  const auto text_end = static_cast<int64_t>(text.size());
  std::vector<TokenOffsets> spans;
  spans.reserve(ids.size());
  int64_t pos = prefixed ? -1 : 0;
  for (const int64_t id : ids) {
    const std::string& bytes = token_bytes_[static_cast<std::size_t>(id)];
    const auto length = static_cast<int64_t>(bytes.size());
    // <mask> eats the whitespace before it (lstrip): those bytes belong to no token.
    if (id == mask_id_) {
      while (pos < text_end && text.compare(static_cast<std::size_t>(std::max<int64_t>(pos, 0)), bytes.size(), bytes) != 0) {
        ++pos;
      }
    }
    for (int64_t k = 0; k < length; ++k) {
      TORCH_CHECK(pos + k < text_end && byte_at(pos + k) == bytes[static_cast<std::size_t>(k)],
                  "ByteLevelBpeTokenizer: token ", id, " does not match the text at byte ", pos + k,
                  " (a vocabulary whose tokens do not spell their bytes?)");
    }
    const int64_t begin = pos, end = pos + length;
    pos = end;
    TokenOffsets span{id, char_at(begin), end <= 0 ? 0 : before[static_cast<std::size_t>(end)]};
    // Trim the spaces a token carries, as HF's ByteLevel post-processor: all leading ones, except one
    // space on a first token (or one starting at character 0) when add_prefix_space is on.
    int64_t leading = 0, trailing = 0;
    while (leading < length && bytes[static_cast<std::size_t>(leading)] == ' ') ++leading;
    while (trailing < length && bytes[static_cast<std::size_t>(length - 1 - trailing)] == ' ') ++trailing;
    if (options.add_prefix_space() && leading == 1 && (spans.empty() || span.begin == 0)) leading = 0;
    // Spaces are one byte and one code point each, so the trimmed counts apply to characters too.
    span.begin = std::min(span.begin + leading, span.end);
    if (trailing > 0 && span.end >= trailing) span.end = std::max(span.end - trailing, span.begin);
    spans.push_back(span);
  }
  return spans;
}

std::vector<std::string> ByteLevelBpeTokenizer::tokenize(std::string_view text) const {
  std::vector<std::string> tokens;
  for (int64_t id : encode_text(text)) tokens.push_back(tokens_[static_cast<std::size_t>(id)]);
  return tokens;
}

void ByteLevelBpeTokenizer::append_segment_ids(std::string_view segment, std::vector<int64_t>& ids) const {
  if (segment.empty()) return;
  std::vector<std::string_view> pieces;
  gpt2_pretokenize(segment, pieces);
  for (std::string_view piece : pieces) append_piece_ids(piece, ids);
}

void ByteLevelBpeTokenizer::append_piece_ids(std::string_view piece, std::vector<int64_t>& ids) const {
  if (piece.size() == 1) {
    ids.push_back(byte_ids_[static_cast<unsigned char>(piece[0])]);
    return;
  }
  std::string key(piece);
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    const auto it = cache_.find(key);
    if (it != cache_.end()) {
      ids.insert(ids.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  std::vector<int32_t> symbols = apply_merges(piece);
  ids.insert(ids.end(), symbols.begin(), symbols.end());
  std::lock_guard<std::mutex> lock(cache_mutex_);
  if (cache_.size() >= kCacheCapacity) cache_.clear();
  cache_.emplace(std::move(key), std::move(symbols));
}

std::vector<int32_t> ByteLevelBpeTokenizer::apply_merges(std::string_view piece) const {
  // Start from one symbol per byte; repeatedly merge every occurrence (left to right, non-overlapping)
  // of the adjacent pair with the best rank, as HF's RobertaTokenizer.bpe.
  std::vector<int32_t> symbols;
  symbols.reserve(piece.size());
  for (char c : piece) symbols.push_back(byte_ids_[static_cast<unsigned char>(c)]);
  while (symbols.size() > 1) {
    const Merge* best = nullptr;
    uint64_t best_key = 0;
    for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
      const uint64_t key = pair_key(symbols[i], symbols[i + 1]);
      const auto it = merges_.find(key);
      if (it != merges_.end() && (best == nullptr || it->second.rank < best->rank)) {
        best = &it->second;
        best_key = key;
      }
    }
    if (best == nullptr) break;
    std::size_t out = 0;
    for (std::size_t i = 0; i < symbols.size(); ++out) {
      if (i + 1 < symbols.size() && pair_key(symbols[i], symbols[i + 1]) == best_key) {
        symbols[out] = best->merged_id;
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

std::vector<int64_t> ByteLevelBpeTokenizer::add_special_tokens(
    const std::vector<int64_t>& a, const std::optional<std::vector<int64_t>>& b) const {
  return roberta_framing(a, b, bos_id_, eos_id_);
}

std::string ByteLevelBpeTokenizer::decode(const std::vector<int64_t>& ids, bool skip_special_tokens) const {
  // Special tokens are vocabulary entries here (not HF "added tokens"), so HF decodes them together
  // with their neighbours, without inserting spaces around them.
  std::string bytes;
  for (int64_t id : ids) {
    const std::string& token = id_to_token(id);
    if (skip_special_tokens && std::any_of(specials_.begin(), specials_.end(),
                                           [id](const SpecialToken& special) { return special.id == id; })) {
      continue;
    }
    TORCH_CHECK(token_decodable_[static_cast<std::size_t>(id)], "cannot decode id ", id, ": token \"", token,
                "\" of ", directory_, "/vocab.json has characters outside GPT-2's byte-to-unicode map");
    bytes += token_bytes_[static_cast<std::size_t>(id)];
  }
  return utf8_with_replacement(bytes);
}

}  // namespace capaboost
