#include "tokenizers/deberta_v2_tokenizer.h"

#include <c10/util/Exception.h>

#include <filesystem>

#include "tokenizers/utf8.h"

namespace capaboost {
namespace {

constexpr const char* kFix = "point at a DeBERTa-v2/v3 checkpoint directory holding its spm.model";

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
  std::vector<int64_t> ids;
  for (const auto& token : encode_text_with_offsets(text)) ids.push_back(token.id);
  return ids;
}

std::vector<TokenOffsets> DebertaV2Tokenizer::encode_text_with_offsets(std::string_view text) const {
  // Special tokens written in the text are split out first (transformers' added-token split); the
  // segments between them go through SentencePiece, their spans shifted to where they start.
  const std::pair<std::string_view, int64_t> specials[] = {
      {"[MASK]", mask_id_}, {"[CLS]", cls_id_}, {"[SEP]", sep_id_}, {"[PAD]", pad_id_}, {"[UNK]", unk_id_}};
  const auto chars = code_points_before(text);
  std::vector<TokenOffsets> tokens;
  const auto add_segment = [&](std::size_t begin, std::size_t end) {
    for (const auto& span : model_->encode_with_spans(text.substr(begin, end - begin))) {
      tokens.push_back({span.id, chars[begin + span.begin], chars[begin + span.end]});
    }
  };
  std::size_t segment = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    bool matched = false;
    for (const auto& [special, id] : specials) {
      if (text.compare(pos, special.size(), special) != 0) continue;
      add_segment(segment, pos);
      tokens.push_back({id, chars[pos], chars[pos + special.size()]});
      pos += special.size();
      segment = pos;
      matched = true;
      break;
    }
    if (!matched) ++pos;
  }
  add_segment(segment, text.size());
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
