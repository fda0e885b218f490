#include "pretrain/backbone_recipes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace capaboost {
namespace {

nlohmann::json corpus_options(int64_t max_units_per_source) {
  return {{"heldout_fraction", 0.01}, {"seed", 2024}, {"max_units_per_source", max_units_per_source}};
}

nlohmann::json sentencepiece_options(int64_t vocab_size) {
  return {{"kind", "sentencepiece"},  {"vocab_size", vocab_size},
          {"model_type", "unigram"},  {"character_coverage", 0.9999},
          {"input_sentence_size", 0}, {"seed", 2024},
          {"num_threads", 2}};
}

// The whole corpus (~4M words), an 8k unigram vocabulary and a 4-layer encoder of width 256 (5.3M
// parameters). Measured training throughput of this shape (blocks of 128, batch 32, random ids, after two
// warm-up steps, through pretrain_mlm) on the 2-core AMD EPYC while other builds loaded the machine
// (load 5-8): 3358 tok/s on one thread, 3027 tok/s on two with OMP_WAIT_POLICY=PASSIVE, but only 236 tok/s
// on two with OpenMP's default spinning (oversubscribed cores), 1715 tok/s on one thread at load 8. Other
// shapes, one thread at load 7: 3 layers 2270 tok/s, width 192 (FFN 768) 2415, 6 layers 1202, batch 64
// 1657 (no gain over 32). 800 steps × 4096 tokens = 3.3M tokens (~0.6 epoch) take ~18 min at 3000 tok/s,
// leaving ~10 min of the 30-minute budget for the corpus, SentencePiece training, encoding and the
// held-out evaluations (4 × 256 blocks, forward only).
BackboneRecipe mini() {
  BackboneRecipe recipe;
  recipe.profile = "mini";
  recipe.corpus_options = corpus_options(0);
  recipe.tokenizer_options = sentencepiece_options(8000);
  recipe.model =
      RobertaOptions().hidden_size(256).num_hidden_layers(4).num_attention_heads(4).intermediate_size(1024);
  recipe.train_blocks = TextBlockOptions().block_size(128);
  recipe.heldout_max_blocks = 256;
  recipe.pretrain = MlmPretrainOptions()
                        .steps(800)
                        .batch_size(32)
                        .peak_lr(7e-4)
                        .warmup_ratio(0.06)
                        .eval_every(200)
                        .eval_max_blocks(256);
  return recipe;
}

// A few hundred corpus units per source, a tiny vocabulary and model, a few dozen steps: seconds. For
// tests of the whole pipeline, not for fine-tuning.
BackboneRecipe smoke() {
  BackboneRecipe recipe;
  recipe.profile = "smoke";
  recipe.corpus_options = corpus_options(300);
  recipe.tokenizer_options = sentencepiece_options(1000);
  recipe.model =
      RobertaOptions().hidden_size(64).num_hidden_layers(2).num_attention_heads(2).intermediate_size(128);
  recipe.train_blocks = TextBlockOptions().block_size(64);
  recipe.heldout_max_blocks = 32;
  recipe.pretrain = MlmPretrainOptions()
                        .steps(40)
                        .batch_size(8)
                        .peak_lr(2e-3)
                        .warmup_ratio(0.1)
                        .eval_every(20)
                        .eval_max_blocks(32);
  return recipe;
}

}  // namespace

std::vector<std::string> backbone_profiles() { return {"mini", "smoke"}; }

BackboneRecipe backbone_recipe(const std::string& profile) {
  if (profile == "mini") return mini();
  TORCH_CHECK(profile == "smoke", "backbone profile '", profile,
              "' is unknown; known profiles: ", fmt::format("{}", fmt::join(backbone_profiles(), ", ")));
  return smoke();
}

}  // namespace capaboost
