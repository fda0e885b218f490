#pragma once
// DeBERTa-v2/v3's tokenizer (transformers' DebertaV2Tokenizer, slow): SentencePiece over the model's
// own spm.model, with its special pieces [PAD] [CLS] [SEP] [UNK] and [MASK] — which DeBERTaV3's
// 128k spm.model lacks, so it is the added token after the vocabulary (id 128000), as in transformers —
// and the framing [CLS] A [SEP] and [CLS] A [SEP] B [SEP]. The text of a special token in the input
// ("[MASK]") encodes to its id.
//
// Where users put the real tokenizer: a downloaded microsoft/deberta-v3-base directory holds spm.model
// beside config.json; the suite reads it from the checkpoint directory ($CAPABOOST_CHECKPOINTS/
// deberta-v3-base). Models in this layout can be trained with Debian's spm_train (the tests do).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tokenizers/sentencepiece_model.h"
#include "tokenizers/tokenizer.h"

namespace capaboost {

class DebertaV2Tokenizer : public Tokenizer {
 public:
  static constexpr const char* kModelFile = "spm.model";

  /// Loads `dir`/spm.model; errors name the file and the fix.
  static std::shared_ptr<DebertaV2Tokenizer> from_dir(const std::string& dir);
  /// Over an already read model, which must have [PAD], [CLS], [SEP] and [UNK] pieces.
  explicit DebertaV2Tokenizer(std::shared_ptr<const SentencePieceModel> model);
  /// Whether `model` follows DeBERTa's conventions (it has a [CLS] piece).
  static bool recognizes(const SentencePieceModel& model);

  /// Pieces of `text` ("▁Hello", "▁world"); special tokens as their text.
  std::vector<std::string> tokenize(std::string_view text) const;

  std::vector<int64_t> encode_text(std::string_view text) const override;
  /// Special tokens written in the text span their text; the segments between them take their spans
  /// from SentencePiece's normaliser alignment (U+2581 spans no character: "▁Hello" spans "Hello",
  /// where Hugging Face's fast tokenizer would include the space).
  std::vector<TokenOffsets> encode_text_with_offsets(std::string_view text) const override;
  std::vector<int64_t> add_special_tokens(const std::vector<int64_t>& a,
                                          const std::optional<std::vector<int64_t>>& b) const override;
  int64_t num_special_tokens(bool pair) const override { return pair ? 3 : 2; }
  std::string decode(const std::vector<int64_t>& ids, bool skip_special_tokens = false) const override;
  int64_t pad_id() const override { return pad_id_; }
  int64_t mask_id() const override { return mask_id_; }
  std::vector<int64_t> special_ids() const override { return {pad_id_, cls_id_, sep_id_, unk_id_, mask_id_}; }
  /// The SentencePiece pieces plus [MASK] when it is an added token.
  int64_t vocab_size() const override;

  int64_t cls_id() const { return cls_id_; }
  int64_t sep_id() const { return sep_id_; }
  int64_t unk_id() const { return unk_id_; }

 private:
  std::optional<std::string> special_text(int64_t id) const;

  std::shared_ptr<const SentencePieceModel> model_;
  int64_t pad_id_ = 0, cls_id_ = 1, sep_id_ = 2, unk_id_ = 3, mask_id_ = 0;
};

}  // namespace capaboost
