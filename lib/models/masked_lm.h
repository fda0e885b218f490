#pragma once
// What every masked-language model of the suite offers the pre-training loop (pretrain/mlm_pretrainer.h):
// the MLM loss on the target positions, the word embeddings (to start them from word vectors), the
// longest input it accepts and a Hugging Face directory writer. RobertaForMaskedLM and
// DebertaV2ForMaskedLM implement it, so an offline encoder can be pre-trained in either layout.
//
//   MaskedLMImpl& model = *roberta_mlm;                // or *deberta_mlm
//   auto out = model.forward(masked_ids, labels);      // logits only where labels != kIgnoreLabel
//   out.loss.backward();

#include <torch/torch.h>

#include <functional>
#include <string>

namespace capaboost {

/// The label value that marks a position without an MLM target (PyTorch's ignore_index default).
inline constexpr int64_t kIgnoreLabel = -100;

/// What the MLM forward returns.
struct MaskedLMOutput {
  torch::Tensor loss;    ///< scalar mean cross-entropy over the target positions
  torch::Tensor logits;  ///< (N, V): logits of the N target positions only, in row-major (b, t) order
  torch::Tensor labels;  ///< (N): their targets
};

/// An encoder with its masked-language-model head.
class MaskedLMImpl : public torch::nn::Module {
 public:
  /// The MLM objective. input_ids: (B, T) with masking applied; labels: (B, T), the original id at the
  /// target positions and kIgnoreLabel elsewhere; attention_mask: (B, T) of 1/0, undefined = all 1.
  /// Equal to transformers' full-sequence logits followed by cross-entropy with ignore_index = -100;
  /// fails when no position has a target (transformers would return NaN).
  virtual MaskedLMOutput forward(const torch::Tensor& input_ids, const torch::Tensor& labels,
                                 const torch::Tensor& attention_mask = {}) = 0;
  /// The longest input (in tokens, special tokens included) the position scheme accepts.
  virtual int64_t max_length() const = 0;
  /// The input word embeddings (V, E), tied to the output projection.
  virtual torch::nn::Embedding& word_embeddings() = 0;
  /// Standard deviation of the random initialisation of the linear and embedding weights.
  virtual double initializer_range() const = 0;
  /// config.json and model.safetensors into `dir`, readable by transformers' from_pretrained.
  virtual void save_pretrained_directory(const std::string& dir) = 0;
};

/// The MLM head applied where it is read: gathers the target rows of `hidden` (B, T, C) (labels (B, T)
/// != kIgnoreLabel), maps them to (N, V) logits with `head` and takes the mean cross-entropy. Gathering
/// first skips the (B·T − N) × V logits nobody reads: with 15% masking the vocabulary projection costs
/// ~1/7 of the full one. `model_name` names the model in the error when no position has a target.
MaskedLMOutput masked_lm_output(const torch::Tensor& hidden, const torch::Tensor& labels,
                                const std::function<torch::Tensor(const torch::Tensor&)>& head,
                                const std::string& model_name);

/// transformers' MLM loss: cross-entropy of logits (…, V) against labels (…), positions labelled
/// kIgnoreLabel excluded from the mean.
torch::Tensor masked_lm_loss(const torch::Tensor& logits, const torch::Tensor& labels);

}  // namespace capaboost
