#pragma once
// Several fine-tuning runs trained as one: "many small runs at once" for the mini profile, where a
// width-128 encoder spends most of its time on per-op overhead, not arithmetic.
//
// The runs of a figure sweep that share a seed share everything a run draws from it — the head's and
// the tuners' initial values, the data order, the dropout masks — and differ only in what they train
// with: learning rate, CapaBoost masks (kind, density, mask seed), rank. Packed, they run one forward:
// the batch is repeated once per run along the batch dimension, the frozen encoder's products run once
// over all copies (k times the rows, one op each), and at every tuned site each run's own tuner adapts
// its own slice (sites/packed_tuner.h). Each run keeps its own model object — its tuners and head are
// the modules trained, counted, ranked and saved, exactly as alone — and its own optimizer, schedule
// and result (train/pack_trainer.h). Dropout draws one mask per call for all copies, as each run
// alone draws it (models/dropout_packing.h), so every run sees the masks, data order and
// initialisation it sees alone; what differs is the rounding of k-times-taller products.

#include <torch/torch.h>

#include <vector>

#include "data/batch.h"
#include "models/roberta.h"

namespace capaboost {

/// k RoBERTa sequence classifiers trained as one. Supports tuners on linear sites only (LoRA and its
/// CapaBoost forms, adapters, …) with a frozen backbone; refuses anything else when built.
class PackedSequenceClassifier {
 public:
  /// `runs[i]`: run i's model, built, initialised and attached exactly as the run alone builds it (its
  /// backbone frozen, its tuners and head trainable). `carrier`: a model of the same architecture
  /// and frozen weights, without tuners; the runs' tuners are packed onto its sites. Throws when the
  /// runs' frozen weights differ from the carrier's, or their tuned sites differ from each other's.
  PackedSequenceClassifier(RobertaForSequenceClassification carrier, std::vector<RobertaForSequenceClassification> runs);

  /// One (B, num_labels) output per run for batch.inputs input_ids (B, T) and attention_mask (B, T):
  /// what runs[i]->forward_batch(batch) computes, up to rounding.
  std::vector<torch::Tensor> forward(const Batch& batch);

  /// Training or evaluation mode for the carrier and every run's modules.
  void train(bool on = true);

  size_t size() const { return runs_.size(); }
  RobertaForSequenceClassificationImpl& run(size_t i) { return *runs_.at(i); }

 private:
  RobertaForSequenceClassification carrier_;
  std::vector<RobertaForSequenceClassification> runs_;
};

}  // namespace capaboost
