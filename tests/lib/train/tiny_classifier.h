#pragma once
// A one-layer, width-8 RoBERTa classifier for the trainer tests: big enough to have every kind of
// parameter (embeddings, attention, LayerNorm, head), small enough to build in microseconds.

#include "models/roberta.h"

namespace capaboost::testing {

/// The same shape with `layers` layers and no dropout, so that two forward passes agree exactly.
inline RobertaForSequenceClassification tiny_deterministic_classifier(int64_t layers) {
  return RobertaForSequenceClassification(roberta_options()
                                              .vocab_size(30)
                                              .hidden_size(8)
                                              .num_hidden_layers(layers)
                                              .num_attention_heads(2)
                                              .intermediate_size(12)
                                              .max_position_embeddings(12)
                                              .num_labels(2)
                                              .hidden_dropout_prob(0.0)
                                              .attention_probs_dropout_prob(0.0));
}

inline RobertaForSequenceClassification tiny_classifier() {
  return RobertaForSequenceClassification(roberta_options()
                                              .vocab_size(30)
                                              .hidden_size(8)
                                              .num_hidden_layers(1)
                                              .num_attention_heads(2)
                                              .intermediate_size(12)
                                              .max_position_embeddings(12)
                                              .num_labels(2));
}

}  // namespace capaboost::testing
