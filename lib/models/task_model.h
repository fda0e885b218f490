#pragma once
// The model interface the trainer, the measures and the tuners work against: a backbone with a task
// head. RoBERTa's sequence classifier implements it today; DeBERTaV3, ViT and span (question
// answering) heads implement the same three functions, so the trainer never changes for them.
//
//   TaskModelPtr model = load_backbone("mini", TaskHead{TaskHead::Kind::kSequenceClassification, 2}, …).model;
//   torch::Tensor logits = model->forward_batch(batch);         // (B, 2)
//   torch::Tensor loss = model->batch_loss(logits, batch);

#include <torch/torch.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "data/batch.h"
#include "data/image_processor.h"
#include "tokenizers/tokenizer.h"

namespace capaboost {

/// What a task asks of a backbone's head.
struct TaskHead {
  enum class Kind {
    kSequenceClassification,  ///< logits (B, num_labels) from the whole sequence; num_labels 1 = regression
    kSpan,                    ///< extractive question answering: start and end logits per token, (B, T, 2)
  };
  Kind kind = Kind::kSequenceClassification;
  int64_t num_labels = 2;
};
std::string to_string(TaskHead::Kind kind);

/// What turns a task's raw examples into a backbone's inputs: its tokenizer for text backbones, its
/// image settings (size, channels, normalisation) for vision ones.
struct InputProcessor {
  std::shared_ptr<Tokenizer> tokenizer;  ///< null for backbones that read no text
  int64_t max_length = 0;                ///< longest token sequence the backbone embeds; 0: no limit
  std::optional<ImageProcessorOptions> image;  ///< unset for backbones that read no images
};

class TaskModelImpl : public torch::nn::Module {
 public:
  /// The task outputs of `batch` (logits (B, num_labels) for sequence classification). Reads the
  /// inputs it needs by name and fails naming any that are missing.
  virtual torch::Tensor forward_batch(const Batch& batch) = 0;

  /// The training loss of `outputs` (from forward_batch) against batch.labels, as Hugging Face's
  /// …For<Task> models compute it.
  virtual torch::Tensor batch_loss(const torch::Tensor& outputs, const Batch& batch) const = 0;

  /// Parameter-name prefixes of the task head ("classifier."): the head trains under every method and
  /// is counted apart from the backbone.
  virtual std::vector<std::string> head_prefixes() const = 0;
};

using TaskModelPtr = std::shared_ptr<TaskModelImpl>;

}  // namespace capaboost
