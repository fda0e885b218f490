#include "tokenizers/byte_level_bpe_tokenizer.h"

#include <fmt/format.h>

#include "tokenizers/bpe_files.h"
#include "tokenizers/gpt2_pretokenizer.h"
#include "tokenizers/unicode_class.h"
#include "tokenizers/utf8.h"

namespace capaboost {

namespace {

ByteLevelBpeModel read_roberta_bpe(const std::string& directory) {
  BpeFiles files = read_bpe_files(directory);
  std::vector<ByteLevelBpeMerge> merges;
  std::vector<int64_t> lines;
  merges.reserve(files.merges.size());
  lines.reserve(files.merges.size());
  for (BpeMerge& merge : files.merges) {
    merges.push_back({std::move(merge.left), std::move(merge.right)});
    lines.push_back(merge.line);
  }
  const ByteLevelBpeSource source{
      directory + "/vocab.json",
      [&](std::size_t rank) { return fmt::format("{}/merges.txt line {}", directory, lines[rank]); },
      "the two files do not belong together: use the vocab.json and merges.txt of one byte-level BPE model with "
      "RoBERTa's special tokens (e.g. roberta-base)"};
  return ByteLevelBpeModel(std::move(files.tokens), merges, source);
}

}  // namespace

ByteLevelBpeTokenizer::ByteLevelBpeTokenizer(const std::string& directory,
                                             const ByteLevelBpeOptions& options_)
    : options(options_),
      directory_(directory),
      bpe_(read_roberta_bpe(directory)),
      bos_id_(required_id("<s>", "RoBERTa's bos/cls token")),
      pad_id_(required_id("<pad>", "RoBERTa's padding token")),
      eos_id_(required_id("</s>", "RoBERTa's eos/sep token")),
      unk_id_(required_id("<unk>", "RoBERTa's unknown token")),
      mask_id_(required_id("<mask>", "RoBERTa's mask token")),
      specials_({{"<s>", bos_id_, false},
                 {"<pad>", pad_id_, false},
                 {"</s>", eos_id_, false},
                 {"<unk>", unk_id_, false},
                 {"<mask>", mask_id_, true}}) {}

int64_t ByteLevelBpeTokenizer::required_id(const std::string& token, const std::string& why) const {
  const auto id = bpe_.find(token);
  TORCH_CHECK(
      id, directory_, "/vocab.json has no token \"", token, "\" (", why,
      "); use the vocab.json of a byte-level BPE model with RoBERTa's special tokens (e.g. roberta-base)");
  return *id;
}

int64_t ByteLevelBpeTokenizer::token_to_id(const std::string& token) const {
  const auto id = bpe_.find(token);
  TORCH_CHECK(id, "token \"", token, "\" is not in ", directory_, "/vocab.json");
  return *id;
}

const std::string& ByteLevelBpeTokenizer::id_to_token(int64_t id) const { return bpe_.token(id); }

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
  std::vector<std::string_view> pieces;
  specials_.for_each_part(text, [&](const TextPart& part) {
    if (part.special != nullptr) {
      ids.push_back(part.special->id);
      return;
    }
    pieces.clear();
    gpt2_pretokenize(part.text, pieces);
    for (const std::string_view piece : pieces) bpe_.append_piece_ids(piece, ids);
  });
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
    const std::string& bytes = bpe_.token_bytes(id);
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
  for (int64_t id : encode_text(text)) tokens.push_back(bpe_.token(id));
  return tokens;
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
    if (skip_special_tokens && specials_.find_id(id) != nullptr) continue;
    TORCH_CHECK(bpe_.decodable(id), "cannot decode id ", id, ": token \"", token,
                "\" of ", directory_, "/vocab.json has characters outside GPT-2's byte-to-unicode map");
    bytes += bpe_.token_bytes(id);
  }
  return utf8_with_replacement(bytes);
}

}  // namespace capaboost
