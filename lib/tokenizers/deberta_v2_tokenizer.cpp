#include "tokenizers/deberta_v2_tokenizer.h"

#include <c10/util/Exception.h>

#include <filesystem>

#include "tokenizers/utf8.h"

namespace capaboost {
namespace {

constexpr const char* kFix = "point at a DeBERTa-v2/v3 checkpoint directory holding its spm.model";

// Walks `text` as transformers' added-token split does: `segment(begin, end)` for each run of ordinary
// text (possibly empty) and `special(id, begin, end)` for each special token written in it, in order.
template <typename Segment, typename Special>
void split_specials(const DebertaV2Tokenizer& tokenizer, std::string_view text, Segment&& segment, Special&& special) {
  const std::pair<std::string_view, int64_t> specials[] = {{"[MASK]", tokenizer.mask_id()},
                                                           {"[CLS]", tokenizer.cls_id()},
                                                           {"[SEP]", tokenizer.sep_id()},
                                                           {"[PAD]", tokenizer.pad_id()},
                                                           {"[UNK]", tokenizer.unk_id()}};
  std::size_t start = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    bool matched = false;
    for (const auto& [text_of_special, id] : specials) {
      if (text.compare(pos, text_of_special.size(), text_of_special) != 0) continue;
      segment(start, pos);
      special(id, pos, pos + text_of_special.size());
      pos += text_of_special.size();
      start = pos;
      matched = true;
      break;
    }
    if (!matched) ++pos;
  }
  segment(start, text.size());
}

}  // namespace

std::shared_ptr<DebertaV2Tokenizer> DebertaV2Tokenizer::from_dir(const std::string& dir) {
  return std::make_shared<DebertaV2Tokenizer>(
      std::make_shared<SentencePieceModel>((std::filesystem::path(dir) / kModelFile).string(), kFix));
}

bool DebertaV2Tokenizer::recognizes(const SentencePieceModel& model) { return model.find("[CLS]").has_value(); }

DebertaV2Tokenizer::DebertaV2Tokenizer(std::shared_ptr<const SentencePieceModel> model) : model_(std::move(model)) {
  const auto required = [&](const char* text) {
    const auto id = model_->find(text);
    TORCH_CHECK(id.has_value(), "DebertaV2Tokenizer: ", model_->file(), " has no ", text, " piece; ", kFix);
    return *id;
  };
  pad_id_ = required("[PAD]");
  cls_id_ = required("[CLS]");
  sep_id_ = required("[SEP]");
  unk_id_ = required("[UNK]");
  // DeBERTaV3's spm.model has no [MASK]: transformers adds it after the vocabulary.
  mask_id_ = model_->find("[MASK]").value_or(model_->size());
}

int64_t DebertaV2Tokenizer::vocab_size() const { return std::max(model_->size(), mask_id_ + 1); }

std::optional<std::string> DebertaV2Tokenizer::special_text(int64_t id) const {
  if (id == pad_id_) return "[PAD]";
  if (id == cls_id_) return "[CLS]";
  if (id == sep_id_) return "[SEP]";
  if (id == unk_id_) return "[UNK]";
  if (id == mask_id_) return "[MASK]";
  return std::nullopt;
}

std::vector<int64_t> DebertaV2Tokenizer::encode_text(std::string_view text) const {
  // Ids only: SentencePiece without the normaliser alignment that offsets need.
  std::vector<int64_t> ids;
  split_specials(
      *this, text,
      [&](std::size_t begin, std::size_t end) {
        const auto piece_ids = model_->encode(text.substr(begin, end - begin));
        ids.insert(ids.end(), piece_ids.begin(), piece_ids.end());
      },
      [&](int64_t id, std::size_t, std::size_t) { ids.push_back(id); });
  return ids;
}

std::vector<TokenOffsets> DebertaV2Tokenizer::encode_text_with_offsets(std::string_view text) const {
  // The segments' spans are shifted to where each segment starts; a special token spans its text.
  const auto chars = code_points_before(text);
  std::vector<TokenOffsets> tokens;
  split_specials(
      *this, text,
      [&](std::size_t begin, std::size_t end) {
        for (const auto& span : model_->encode_with_spans(text.substr(begin, end - begin))) {
          tokens.push_back({span.id, chars[begin + span.begin], chars[begin + span.end]});
        }
      },
      [&](int64_t id, std::size_t begin, std::size_t end) { tokens.push_back({id, chars[begin], chars[end]}); });
  return tokens;
}

std::vector<std::string> DebertaV2Tokenizer::tokenize(std::string_view text) const {
  std::vector<std::string> pieces;
  for (const int64_t id : encode_text(text)) {
    const auto special = special_text(id);
    pieces.push_back(special ? *special : model_->piece(id));
  }
  return pieces;
}

std::vector<int64_t> DebertaV2Tokenizer::add_special_tokens(const std::vector<int64_t>& a,
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

std::string DebertaV2Tokenizer::decode(const std::vector<int64_t>& ids, bool skip_special_tokens) const {
  for (const int64_t id : ids) {
    TORCH_CHECK(id >= 0 && id < vocab_size(), "DebertaV2Tokenizer::decode: id ", id, " outside [0, ", vocab_size(),
                ") of ", model_->file());
  }
  return decode_with_specials(*model_, ids, [this](int64_t id) { return special_text(id); }, skip_special_tokens);
}

}  // namespace capaboost
