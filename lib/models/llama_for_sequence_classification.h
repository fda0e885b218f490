#pragma once
// A Llama decoder as a sequence classifier, as transformers' LlamaForSequenceClassification: the decoder
// ("model") and a bias-free linear layer ("score") read at each row's last real token — the only
// position that has seen the whole text.
//
//   LlamaForSequenceClassification model(options.num_labels(2));
//   torch::Tensor logits = model->forward(input_ids, attention_mask);   // (B, 2)

#include <torch/torch.h>

#include <string>
#include <vector>

#include "models/llama_model.h"
#include "models/task_model.h"
#include "sites/tunable_linear.h"

namespace capaboost {

/// Index of each row's last real token: the last position whose attention_mask is 1 ((B, T) → (B)
/// int64; T − 1 for every row without a mask). transformers 4.47 takes the position before the first
/// pad_token_id instead; the two agree whenever the pad id occurs only as padding, but SmolLM2 pads with
/// its end-of-turn token <|im_end|>, which chat-formatted text contains, so the mask is what is read here.
torch::Tensor last_real_token(const torch::Tensor& attention_mask, int64_t batch, int64_t length);

/// As a task model it reads "input_ids", and "attention_mask" when the batch has one.
class LlamaForSequenceClassificationImpl : public TaskModelImpl {
 public:
  explicit LlamaForSequenceClassificationImpl(const LlamaOptions& options);

  /// Inputs as LlamaModel::forward (no cache) → logits (B, num_labels).
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask = {},
                        const torch::Tensor& position_ids = {});
  /// transformers' loss for these logits (models/classification_loss.h).
  torch::Tensor loss(const torch::Tensor& logits, const torch::Tensor& labels) const;

  torch::Tensor forward_batch(const Batch& batch) override;
  torch::Tensor batch_loss(const torch::Tensor& outputs, const Batch& batch) const override;
  std::vector<std::string> head_prefixes() const override { return {"score."}; }

  LlamaOptions options;
  LlamaModel model{nullptr};
  TunableLinear score{nullptr};
};
TORCH_MODULE(LlamaForSequenceClassification);

}  // namespace capaboost
