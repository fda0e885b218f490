#include "tokenizers/wordpiece_tokenizer.h"

#include <algorithm>
#include <utility>

#include "tokenizers/bert_normalizer.h"
#include "tokenizers/utf8.h"

namespace capaboost {

namespace {

// Every occurrence of `from` in `text` replaced by `to`, left to right (Rust's str::replace).
void replace_all(std::string& text, std::string_view from, std::string_view to) {
  std::string out;
  std::size_t start = 0;
  for (std::size_t at; (at = text.find(from, start)) != std::string::npos; start = at + from.size()) {
    out.append(text, start, at - start);
    out.append(to);
  }
  if (start == 0) return;
  out.append(text, start, std::string::npos);
  text = std::move(out);
}

// tokenizers' WordPiece decoder clean-up, applied to one decoded token (which may start with its space).
void clean_up(std::string& piece) {
  static const std::pair<std::string_view, std::string_view> kRules[] = {
      {" .", "."},   {" ?", "?"},       {" !", "!"},           {" ,", ","},   {" ' ", "'"},  {" n't", "n't"},
      {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
  for (const auto& [from, to] : kRules) replace_all(piece, from, to);
}

}  // namespace

WordPieceTokenizer::WordPieceTokenizer(const std::string& directory)
    : WordPieceTokenizer(directory, read_wordpiece_files(directory)) {}

WordPieceTokenizer::WordPieceTokenizer(const std::string& directory, const WordPieceOptions& options)
    : WordPieceTokenizer(directory, WordPieceFiles{read_wordpiece_vocab(directory), options}) {}

WordPieceTokenizer::WordPieceTokenizer(std::string directory, WordPieceFiles files)
    : options(std::move(files.options)), directory_(std::move(directory)), tokens_(std::move(files.tokens)) {
  ids_.reserve(tokens_.size());
  for (std::size_t id = 0; id < tokens_.size(); ++id) {
    // A repeated token keeps its last line, as transformers' load_vocab.
    ids_[tokens_[id]] = static_cast<int64_t>(id);
    max_token_chars_ = std::max(max_token_chars_, static_cast<std::size_t>(code_point_count(tokens_[id])));
  }
  TORCH_CHECK(options.max_input_chars_per_word() >= 0, "WordPieceTokenizer: max_input_chars_per_word must be >= 0, got ",
              options.max_input_chars_per_word());
  const auto required = [&](const std::string& token, const char* role) {
    const auto it = ids_.find(token);
    TORCH_CHECK(it != ids_.end(), directory_, "/vocab.txt has no token \"", token, "\" (BERT's ", role,
                " token); use the vocab.txt of a BERT checkpoint, or name its token in tokenizer_config.json");
    return it->second;
  };
  cls_id_ = required(options.cls_token(), "classification");
  sep_id_ = required(options.sep_token(), "separator");
  pad_id_ = required(options.pad_token(), "padding");
  unk_id_ = required(options.unk_token(), "unknown");
  mask_id_ = required(options.mask_token(), "mask");
  for (const std::string* special : {&options.cls_token(), &options.sep_token(), &options.pad_token(),
                                      &options.unk_token(), &options.mask_token()}) {
    TORCH_CHECK(!special->empty(), "WordPieceTokenizer: a special token of ", directory_, " is empty");
  }
  specials_ = SpecialTokenSplitter({{options.cls_token(), cls_id_},
                                    {options.sep_token(), sep_id_},
                                    {options.pad_token(), pad_id_},
                                    {options.unk_token(), unk_id_},
                                    {options.mask_token(), mask_id_}});
}

int64_t WordPieceTokenizer::token_to_id(const std::string& token) const {
  const auto it = ids_.find(token);
  TORCH_CHECK(it != ids_.end(), "token \"", token, "\" is not in ", directory_, "/vocab.txt");
  return it->second;
}

const std::string& WordPieceTokenizer::id_to_token(int64_t id) const {
  TORCH_CHECK(id >= 0 && id < vocab_size(), "id ", id, " is outside the vocabulary [0, ", vocab_size(), ") of ",
              directory_, "/vocab.txt");
  return tokens_[static_cast<std::size_t>(id)];
}

bool WordPieceTokenizer::is_special(int64_t id) const { return specials_.find_id(id) != nullptr; }

std::vector<int64_t> WordPieceTokenizer::encode_text(std::string_view text) const {
  // One path for ids and spans: the spans cost little beside normalisation.
  std::vector<int64_t> ids;
  for (const auto& token : encode_text_with_offsets(text)) ids.push_back(token.id);
  return ids;
}

std::vector<TokenOffsets> WordPieceTokenizer::encode_text_with_offsets(std::string_view text) const {
  check_utf8(text, "tokenizer input");
  const std::vector<int64_t> chars = code_points_before(text);
  std::vector<TokenOffsets> tokens;
  tokens.reserve(text.size() / 4 + 1);
  // Special tokens first, on the raw text (tokenizers' added vocabulary: leftmost, then longest).
  specials_.for_each_part(text, [&](const TextPart& part) {
    const auto begin = static_cast<std::size_t>(part.text.data() - text.data());
    if (part.special != nullptr) {
      tokens.push_back({part.special->id, chars[begin], chars[begin + part.text.size()]});
    } else {
      append_segment(part.text, chars[begin], tokens);
    }
  });
  return tokens;
}

void WordPieceTokenizer::append_segment(std::string_view segment, int64_t first_char,
                                        std::vector<TokenOffsets>& tokens) const {
  if (segment.empty()) return;
  const std::vector<NormalizedChar> normalized = bert_normalize(segment, options.normalizer());
  // A span runs from the input character of a piece's first normalized character to that of its last.
  const auto span = [&](int64_t id, std::size_t begin, std::size_t end) {
    return TokenOffsets{id, first_char + normalized[begin].source, first_char + normalized[end - 1].source + 1};
  };
  std::string word;              // the word in UTF-8, for vocabulary look-ups
  std::vector<std::size_t> at;   // byte offset in `word` of each of its characters, and of its end
  std::string key;
  for (const BertWord& w : bert_pre_tokenize(normalized)) {
    const std::size_t length = w.end - w.begin;
    if (length > static_cast<std::size_t>(options.max_input_chars_per_word())) {
      tokens.push_back(span(unk_id_, w.begin, w.end));
      continue;
    }
    word.clear();
    at.clear();
    for (std::size_t k = w.begin; k < w.end; ++k) {
      at.push_back(word.size());
      append_utf8(word, normalized[k].cp);
    }
    at.push_back(word.size());
    // Greedy longest-match-first; no token has more than max_token_chars_ characters.
    const std::size_t first_piece = tokens.size();
    bool spelled = true;
    for (std::size_t start = 0; start < length && spelled;) {
      spelled = false;
      for (std::size_t end = std::min(length, start + max_token_chars_); end > start; --end) {
        key.clear();
        if (start > 0) key += options.continuing_subword_prefix();
        key.append(word, at[start], at[end] - at[start]);
        const auto it = ids_.find(key);
        if (it == ids_.end()) continue;
        tokens.push_back(span(it->second, w.begin + start, w.begin + end));
        start = end;
        spelled = true;
        break;
      }
    }
    if (!spelled) {
      tokens.resize(first_piece);
      tokens.push_back(span(unk_id_, w.begin, w.end));
    }
  }
}

std::vector<std::string> WordPieceTokenizer::tokenize(std::string_view text) const {
  std::vector<std::string> pieces;
  for (const int64_t id : encode_text(text)) pieces.push_back(tokens_[static_cast<std::size_t>(id)]);
  return pieces;
}

std::vector<int64_t> WordPieceTokenizer::add_special_tokens(const std::vector<int64_t>& a,
                                                            const std::optional<std::vector<int64_t>>& b) const {
  std::vector<int64_t> ids;
  ids.reserve(a.size() + (b ? b->size() : 0) + 3);
  ids.push_back(cls_id_);
  ids.insert(ids.end(), a.begin(), a.end());
  ids.push_back(sep_id_);
  if (b) {
    ids.insert(ids.end(), b->begin(), b->end());
    ids.push_back(sep_id_);
  }
  return ids;
}

std::string WordPieceTokenizer::decode(const std::vector<int64_t>& ids, bool skip_special_tokens) const {
  const std::string& prefix = options.continuing_subword_prefix();
  std::string text;
  bool first = true;
  for (const int64_t id : ids) {
    const std::string& token = id_to_token(id);
    if (skip_special_tokens && is_special(id)) continue;
    // The first token is kept as it is, "##" and all; later ones are glued on ("##") or spaced.
    std::string piece;
    if (first) {
      piece = token;
    } else if (token.compare(0, prefix.size(), prefix) == 0) {
      piece = token.substr(prefix.size());
    } else {
      piece = " " + token;
    }
    first = false;
    if (options.decode_cleanup()) clean_up(piece);
    text += piece;
  }
  return text;
}

}  // namespace capaboost
