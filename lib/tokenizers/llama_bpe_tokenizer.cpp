#include "tokenizers/llama_bpe_tokenizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "tokenizers/gpt2_pretokenizer.h"
#include "tokenizers/utf8.h"

namespace capaboost {

namespace {

constexpr const char* kFillFromOneFile =
    "fill LlamaBpeVocabulary from one GGUF file's tokenizer.ggml.* metadata";

// "left right" -> {left, right}: exactly one space between two non-empty symbols, as transformers'
// GGUF converter splits them (byte-level symbols hold no spaces).
ByteLevelBpeMerge parse_merge(const std::string& merge, std::size_t index) {
  const std::size_t space = merge.find(' ');
  TORCH_CHECK(space != std::string::npos && space > 0 && space + 1 < merge.size() &&
                  merge.find(' ', space + 1) == std::string::npos,
              "LlamaBpeVocabulary::merges[", index, "] is \"", merge,
              "\"; a merge is two symbols with one space between them (\"left right\"); ", kFillFromOneFile);
  return {merge.substr(0, space), merge.substr(space + 1)};
}

// tokenizers' ByteFallback decoder turns a token spelled <0xHH> into the byte HH.
bool has_byte_fallback_form(const std::string& token) {
  return token.size() == 6 && token.compare(0, 3, "<0x") == 0 && token[5] == '>' &&
         std::isxdigit(static_cast<unsigned char>(token[3])) && std::isxdigit(static_cast<unsigned char>(token[4]));
}

ByteLevelBpeModel make_llama_bpe(LlamaBpeVocabulary& vocabulary) {
  const auto size = static_cast<int64_t>(vocabulary.tokens.size());
  TORCH_CHECK(vocabulary.token_types.size() == vocabulary.tokens.size(), "LlamaBpeVocabulary has ",
              vocabulary.token_types.size(), " token types for ", size, " tokens; give one per token ",
              "(tokenizer.ggml.token_type)");
  for (std::size_t id = 0; id < vocabulary.tokens.size(); ++id) {
    const int32_t type = vocabulary.token_types[id];
    TORCH_CHECK(type >= static_cast<int32_t>(GgufTokenType::kUndefined) &&
                    type <= static_cast<int32_t>(GgufTokenType::kByte),
                "LlamaBpeVocabulary::token_types[", id, "] (token \"", vocabulary.tokens[id], "\") is ", type,
                ", not a GGUF token type (0 undefined … 6 byte)");
    TORCH_CHECK(!has_byte_fallback_form(vocabulary.tokens[id]), "LlamaBpeVocabulary::tokens[", id, "] is \"",
                vocabulary.tokens[id],
                "\", a byte-fallback token that transformers' decoder would turn into a raw byte: byte-level "
                "vocabularies with byte fallback are not supported");
  }
  const auto check_id = [&](const std::optional<int64_t>& id, const char* name) {
    TORCH_CHECK(!id || (*id >= 0 && *id < size), "LlamaBpeVocabulary::", name, " ", id.value_or(0),
                " is outside the vocabulary [0, ", size, ")");
  };
  check_id(vocabulary.bos_id, "bos_id");
  check_id(vocabulary.eos_id, "eos_id");
  check_id(vocabulary.unk_id, "unk_id");
  check_id(vocabulary.pad_id, "pad_id");
  std::vector<ByteLevelBpeMerge> merges;
  merges.reserve(vocabulary.merges.size());
  for (std::size_t i = 0; i < vocabulary.merges.size(); ++i) merges.push_back(parse_merge(vocabulary.merges[i], i));
  const ByteLevelBpeSource source{"the vocabulary (LlamaBpeVocabulary::tokens)",
                                  [](std::size_t rank) { return fmt::format("LlamaBpeVocabulary::merges[{}]", rank); },
                                  kFillFromOneFile};
  std::optional<int32_t> unknown;
  if (vocabulary.unk_id) unknown = static_cast<int32_t>(*vocabulary.unk_id);
  return ByteLevelBpeModel(std::move(vocabulary.tokens), merges, source, unknown);
}

std::vector<SpecialToken> control_tokens(const ByteLevelBpeModel& bpe, const std::vector<int32_t>& token_types) {
  std::vector<SpecialToken> controls;
  for (std::size_t id = 0; id < token_types.size(); ++id) {
    if (token_types[id] == static_cast<int32_t>(GgufTokenType::kControl)) {
      controls.push_back({bpe.token(static_cast<int64_t>(id)), static_cast<int64_t>(id), false});
    }
  }
  return controls;
}

}  // namespace

LlamaBpeTokenizer::LlamaBpeTokenizer(LlamaBpeVocabulary vocabulary)
    : bpe_(make_llama_bpe(vocabulary)),
      controls_(control_tokens(bpe_, vocabulary.token_types)),
      bos_id_(vocabulary.bos_id),
      eos_id_(vocabulary.eos_id),
      unk_id_(vocabulary.unk_id),
      pad_id_(vocabulary.pad_id),
      add_bos_(vocabulary.add_bos),
      add_eos_(vocabulary.add_eos),
      pretokenizer_(vocabulary.pretokenizer) {
  TORCH_CHECK(!add_bos_ || bos_id_, "LlamaBpeVocabulary::add_bos is set but bos_id is not");
  TORCH_CHECK(!add_eos_ || eos_id_, "LlamaBpeVocabulary::add_eos is set but eos_id is not");
}

std::vector<LlamaBpeTokenizer::Piece> LlamaBpeTokenizer::encode_pieces(std::string_view text) const {
  check_utf8(text, "tokenizer input");
  std::vector<Piece> out;
  out.reserve(text.size() / 3 + 2);
  std::vector<std::string_view> pieces;
  std::vector<ByteLevelBpeModel::Symbol> symbols;
  controls_.for_each_part(text, [&](const TextPart& part) {
    const auto part_begin = static_cast<std::size_t>(part.text.data() - text.data());
    if (part.special != nullptr) {
      out.push_back({part.special->id, part_begin, part_begin + part.text.size()});
      return;
    }
    pieces.clear();
    if (pretokenizer_ == LlamaPretokenizer::kGpt2) {
      gpt2_pretokenize(part.text, pieces);
    } else {
      gpt2_pretokenize_isolating_numbers(part.text, pieces);
    }
    for (const std::string_view piece : pieces) {
      symbols.clear();
      bpe_.append_piece(piece, symbols);
      auto begin = static_cast<std::size_t>(piece.data() - text.data());
      for (const auto& symbol : symbols) {
        const std::size_t end = begin + static_cast<std::size_t>(symbol.bytes);
        out.push_back({symbol.id, begin, end});
        begin = end;
      }
    }
  });
  return out;
}

std::vector<int64_t> LlamaBpeTokenizer::encode_text(std::string_view text) const {
  const std::vector<Piece> pieces = encode_pieces(text);
  std::vector<int64_t> ids;
  ids.reserve(pieces.size());
  for (const Piece& piece : pieces) ids.push_back(piece.id);
  return ids;
}

std::vector<TokenOffsets> LlamaBpeTokenizer::encode_text_with_offsets(std::string_view text) const {
  const std::vector<Piece> pieces = encode_pieces(text);
  // before[b]: code points starting before byte b. A token's span runs from the character holding its
  // first byte (before[begin + 1] − 1) to the end of the one holding its last (before[end]).
  const std::vector<int64_t> before = code_points_before(text);
  std::vector<TokenOffsets> spans;
  spans.reserve(pieces.size());
  for (const Piece& piece : pieces) spans.push_back({piece.id, before[piece.begin + 1] - 1, before[piece.end]});
  return spans;
}

std::vector<std::string> LlamaBpeTokenizer::tokenize(std::string_view text) const {
  std::vector<std::string> tokens;
  for (const int64_t id : encode_text(text)) tokens.push_back(bpe_.token(id));
  return tokens;
}

std::vector<int64_t> LlamaBpeTokenizer::add_special_tokens(const std::vector<int64_t>& a,
                                                           const std::optional<std::vector<int64_t>>& b) const {
  std::vector<int64_t> ids;
  ids.reserve(a.size() + (b ? b->size() : 0) + static_cast<std::size_t>(num_special_tokens(b.has_value())));
  const auto append_framed = [&](const std::vector<int64_t>& sequence) {
    if (add_bos_) ids.push_back(*bos_id_);
    ids.insert(ids.end(), sequence.begin(), sequence.end());
    if (add_eos_) ids.push_back(*eos_id_);
  };
  append_framed(a);
  if (b) append_framed(*b);
  return ids;
}

int64_t LlamaBpeTokenizer::num_special_tokens(bool pair) const {
  return (static_cast<int64_t>(add_bos_) + static_cast<int64_t>(add_eos_)) * (pair ? 2 : 1);
}

std::string LlamaBpeTokenizer::decode(const std::vector<int64_t>& ids, bool skip_special_tokens) const {
  std::string bytes;
  for (const int64_t id : ids) {
    const std::string& token = bpe_.token(id);
    if (skip_special_tokens && controls_.find_id(id) != nullptr) continue;
    TORCH_CHECK(bpe_.decodable(id), "cannot decode id ", id, ": token \"", token,
                "\" has characters outside GPT-2's byte-to-unicode map");
    bytes += bpe_.token_bytes(id);
  }
  return utf8_with_replacement(bytes);
}

int64_t LlamaBpeTokenizer::pad_id() const {
  TORCH_CHECK(pad_id_, "this Llama-family vocabulary names no padding token (tokenizer.ggml.padding_token_id); set "
              "LlamaBpeVocabulary::pad_id (e.g. to the EOS id) to pad batches");
  return *pad_id_;
}

int64_t LlamaBpeTokenizer::mask_id() const {
  TORCH_CHECK(false, "LlamaBpeTokenizer has no mask token: a causal language model is not pre-trained by masking "
              "tokens, so masked-language-model pre-training cannot use it");
  return -1;
}

std::vector<int64_t> LlamaBpeTokenizer::special_ids() const {
  std::vector<int64_t> ids;
  for (const auto& control : controls_.tokens()) ids.push_back(control.id);
  for (const auto& id : {bos_id_, eos_id_, unk_id_, pad_id_}) {
    if (id) ids.push_back(*id);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace capaboost
