#pragma once
// The production stages of a backbone build: the English corpus (corpus/corpus_builder.h) and a
// SentencePiece tokenizer trained on it (tokenizers/sentencepiece_tokenizer.h), configured from a
// recipe's canonical option JSON; for recipes with task text (BackboneRecipe::task_text), the sentences
// of those GLUE tasks' train splits from env.data_root as extra MLM training text.

#include "pretrain/backbone_builder.h"

namespace capaboost {

/// Stages reading the corpus sources under env.npm_prefix, with the corpus and tokenizer options of
/// `recipe` (its corpus_options / tokenizer_options JSON, as backbone_recipes.cpp writes them).
BackboneStages corpus_backbone_stages(const BackboneRecipe& recipe, const BackboneEnvironment& env);

}  // namespace capaboost
