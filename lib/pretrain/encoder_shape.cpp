#include "pretrain/encoder_shape.h"

#include "models/deberta_v2_for_masked_lm.h"
#include "models/roberta_for_masked_lm.h"

namespace capaboost {
namespace {

// std::visit over several lambdas.
template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

}  // namespace

EncoderShape sized_encoder(const EncoderShape& shape, int64_t vocab_size, int64_t pad_id, int64_t block_size) {
  return std::visit(
      Overloaded{[&](const BertOptions& options) -> EncoderShape {
                   return BertOptions(options).vocab_size(vocab_size).pad_token_id(pad_id).max_position_embeddings(
                       block_size + 2);
                 },
                 [&](const DebertaV2Options& options) -> EncoderShape {
                   return DebertaV2Options(options).vocab_size(vocab_size).pad_token_id(pad_id).max_position_embeddings(
                       block_size);
                 }},
      shape);
}

std::shared_ptr<MaskedLMImpl> make_masked_lm(const EncoderShape& shape) {
  return std::visit(Overloaded{[](const BertOptions& options) -> std::shared_ptr<MaskedLMImpl> {
                                 return RobertaForMaskedLM(options).ptr();
                               },
                               [](const DebertaV2Options& options) -> std::shared_ptr<MaskedLMImpl> {
                                 return DebertaV2ForMaskedLM(options).ptr();
                               }},
                    shape);
}

nlohmann::json encoder_config_json(const EncoderShape& shape) {
  return std::visit(Overloaded{[](const BertOptions& options) {
                                 return bert_config_json(options, "RobertaForMaskedLM");
                               },
                               [](const DebertaV2Options& options) {
                                 return deberta_v2_config_json(options, "DebertaV2ForMaskedLM");
                               }},
                    shape);
}

}  // namespace capaboost
