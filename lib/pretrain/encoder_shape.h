#pragma once
// The architecture an offline backbone is pre-trained in: RoBERTa (absolute positions) or DeBERTa-v2
// (disentangled attention over relative positions). A recipe gives the shape; the builder sizes it for
// the trained tokenizer and block length and gets the matching masked-language model.
//
//   EncoderShape shape = DebertaV2Options().hidden_size(128).num_hidden_layers(4);
//   auto model = make_masked_lm(sized_encoder(shape, tokenizer->vocab_size(), tokenizer->pad_id(), 128));

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <variant>

#include "models/deberta_v2_config.h"
#include "models/masked_lm.h"
#include "models/bert_config.h"

namespace capaboost {

using EncoderShape = std::variant<BertOptions, DebertaV2Options>;

/// `shape` with the tokenizer's vocabulary and padding id and positions for blocks of `block_size`
/// tokens: RoBERTa needs block_size + 2 (its positions start after the padding index), DeBERTa-v2
/// block_size.
EncoderShape sized_encoder(const EncoderShape& shape, int64_t vocab_size, int64_t pad_id, int64_t block_size);

/// RobertaForMaskedLM or DebertaV2ForMaskedLM of `shape`, randomly initialised from the current torch seed.
std::shared_ptr<MaskedLMImpl> make_masked_lm(const EncoderShape& shape);

/// The config.json the MLM model of `shape` is saved with (the architecture's own layout).
nlohmann::json encoder_config_json(const EncoderShape& shape);

}  // namespace capaboost
