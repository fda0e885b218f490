// The recipes' initial weight scale: 1/√width, because at transformers' 0.02 a narrow encoder does not
// learn to use positions in any budget the suite has (see lib/pretrain/backbone_recipes.cpp).

#include "pretrain/backbone_recipes.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "pretrain/mlm_masking.h"
#include "pretrain/mlm_pretrainer.h"

using namespace capaboost;

namespace {

constexpr int64_t kVocab = 72;      // ids 0..4 special (<s> <pad> </s> <unk> <mask>), 8..71 words
constexpr int64_t kFirstWord = 8;
constexpr int64_t kBlockSize = 32;

// Blocks of pairs: x[2k+1] = x[2k], words uniform. A masked word can only be recovered from its
// neighbour, so accuracy at <mask> measures whether attention has learned to look one position over.
TextBlocks pair_blocks(int64_t count, uint64_t seed) {
  auto generator = at::make_generator<at::CPUGeneratorImpl>(seed);
  const auto words = torch::randint(kFirstWord, kVocab, {count, kBlockSize / 2}, generator, torch::kLong);
  TextBlocks blocks;
  blocks.ids = words.repeat_interleave(2, /*dim=*/1);  // (count, kBlockSize)
  blocks.tokens = blocks.ids.numel();
  return blocks;
}

// Accuracy at <mask> on held-out pair blocks after a short MLM run of the smoke recipe's encoder shape
// at the given initial scale.
double pair_accuracy_at_mask(double initializer_range) {
  const auto options = backbone_recipe("smoke")
                           .model.vocab_size(kVocab)
                           .max_position_embeddings(kBlockSize + 2)
                           .initializer_range(initializer_range);
  torch::manual_seed(3);
  RobertaForMaskedLM model(options);
  const MlmMasker masker(MlmMaskingOptions(/*mask_id=*/4, kVocab, {0, 1, 2, 3, 4}));
  const auto result = pretrain_mlm(*model, pair_blocks(4096, 1), pair_blocks(64, 2), masker,
                                   MlmPretrainOptions()
                                       .steps(700)
                                       .batch_size(32)
                                       .peak_lr(2e-3)
                                       .eval_every(0)
                                       .eval_max_blocks(64)
                                       .show_progress(false));
  return result.final_heldout_masked_accuracy;
}

}  // namespace

TEST_CASE("the suite's encoders start their weights at 1/sqrt(width)", "[pretrain][recipes]") {
  for (const auto& profile : backbone_profiles()) {
    const auto recipe = backbone_recipe(profile);
    INFO(profile);
    CHECK(recipe.model.initializer_range() ==
          Approx(1.0 / std::sqrt(static_cast<double>(recipe.model.hidden_size()))));
  }
}

TEST_CASE("at 1/sqrt(width) the smoke encoder learns a positional rule that transformers' 0.02 does not",
          "[pretrain][recipes]") {
  const double recipe_scale = backbone_recipe("smoke").model.initializer_range();
  const double at_recipe = pair_accuracy_at_mask(recipe_scale);
  const double at_default = pair_accuracy_at_mask(0.02);
  INFO("accuracy at <mask>: " << at_recipe << " at " << recipe_scale << ", " << at_default << " at 0.02");
  // Chance is 1/64; the ceiling is about 0.83 (the partner itself masked or replaced 17% of the time).
  CHECK(at_recipe > 0.6);
  CHECK(at_default < 0.2);
}
