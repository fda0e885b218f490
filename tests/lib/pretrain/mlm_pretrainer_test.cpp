#include "pretrain/mlm_pretrainer.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "lib/pretrain/pretrain_fixture.h"
#include "lib/tokenizers/tiny_bpe_dir.h"
#include "models/roberta_for_masked_lm.h"
#include "support/temp_dir.h"
#include "tokenizers/byte_level_bpe_tokenizer.h"

using namespace capaboost;
using namespace capaboost::testing;

namespace {

struct Setup {
  TinyBpeDir bpe;
  ByteLevelBpeTokenizer tokenizer{bpe.path()};
  TempDir dir;
  TextBlocks train;
  TextBlocks heldout;

  Setup() {
    write_lines(dir.file("train.txt"), grammar_sentences(300));
    write_lines(dir.file("heldout.txt"), grammar_sentences(40, 1000));
    train = encode_text_blocks(tokenizer, dir.file("train.txt"), TextBlockOptions().block_size(32));
    heldout = encode_text_blocks(tokenizer, dir.file("heldout.txt"), TextBlockOptions().block_size(32));
  }

  RobertaForMaskedLM model() const {
    torch::manual_seed(5);
    return RobertaForMaskedLM(roberta_options()
                                  .vocab_size(tokenizer.vocab_size())
                                  .hidden_size(32)
                                  .num_hidden_layers(2)
                                  .num_attention_heads(2)
                                  .intermediate_size(64)
                                  .max_position_embeddings(34));
  }

  MlmMasker masker() const {
    return MlmMasker(MlmMaskingOptions(tokenizer.mask_id(), tokenizer.vocab_size(), tokenizer.special_ids()));
  }
};

MlmPretrainOptions quick(int64_t steps) {
  return MlmPretrainOptions()
      .steps(steps)
      .batch_size(8)
      .peak_lr(3e-3)
      .warmup_ratio(0.1)
      .eval_every(steps / 4)
      .show_progress(false);
}

}  // namespace

TEST_CASE("MLM pre-training lowers the training and held-out loss", "[pretrain][mlm]") {
  Setup setup;
  auto model = setup.model();
  // 60 steps reach the unigram plateau (predicting the most frequent token); getting past it takes
  // longer than a unit test should (on real English, 500 steps of a 2-layer model do: 0.063 vs 0.036).
  const auto result = pretrain_mlm(*model, setup.train, setup.heldout, setup.masker(), quick(60));
  INFO("held-out accuracy " << result.final_heldout_accuracy << ", unigram " << result.baseline_accuracy);
  REQUIRE(result.log.size() == 4);
  CHECK(result.log.front().step == 15);
  CHECK(result.log.back().step == 60);
  CHECK(result.log.back().train_loss < 0.7 * result.log.front().train_loss);
  CHECK(result.log.back().heldout_loss < result.log.front().heldout_loss);
  CHECK(result.final_heldout_accuracy >= result.baseline_accuracy);
  CHECK(result.baseline_accuracy > 0.0);
  CHECK(result.heldout_targets > 0);
  // Copying the 10% unchanged targets and guessing the unigram under the 80% <mask>: in expectation
  // 0.1 + 0.8 · unigram. The fixture has about a hundred held-out targets (standard error about
  // 0.04), so the margin only catches a miscount such as scoring the random replacements as copies.
  INFO("no-context " << result.no_context_accuracy << ", at <mask> " << result.final_heldout_masked_accuracy
                     << " over " << result.heldout_targets << " targets");
  CHECK(result.no_context_accuracy == Approx(0.1 + 0.8 * result.baseline_accuracy).margin(0.06));
  // At the unigram plateau the model's guess under <mask> is the most frequent token.
  CHECK(result.final_heldout_masked_accuracy == Approx(result.baseline_accuracy).margin(0.05));
  // The fixture's grammar is local: two visible neighbours pin most words down, so the count model
  // beats the unigram at <mask> by far.
  INFO("neighbour counts at <mask> " << result.neighbour_count_masked_accuracy);
  CHECK(result.neighbour_count_masked_accuracy > result.baseline_accuracy + 0.15);
  CHECK(result.neighbour_count_masked_accuracy <= 1.0);
  CHECK(result.to_json()["neighbour_count_masked_accuracy"] == result.neighbour_count_masked_accuracy);
  CHECK(result.train_tokens == 60 * 8 * 32);
  CHECK(result.tokens_per_second > 0.0);
  CHECK(result.to_json()["log"].size() == 4);
}

TEST_CASE("MLM pre-training is repeatable for a seed", "[pretrain][mlm]") {
  Setup setup;
  auto a = setup.model();
  auto b = setup.model();
  const auto ra = pretrain_mlm(*a, setup.train, setup.heldout, setup.masker(), quick(6));
  const auto rb = pretrain_mlm(*b, setup.train, setup.heldout, setup.masker(), quick(6));
  CHECK(ra.final_heldout_loss == rb.final_heldout_loss);
  CHECK(torch::equal(a->lm_head->dense->weight, b->lm_head->dense->weight));
}

TEST_CASE("MLM pre-training stops with a clear error on a NaN loss", "[pretrain][mlm]") {
  Setup setup;
  auto model = setup.model();
  {
    torch::NoGradGuard no_grad;
    model->lm_head->bias[7].fill_(std::nan(""));
  }
  CHECK_THROWS_WITH(pretrain_mlm(*model, setup.train, setup.heldout, setup.masker(), quick(3)),
                    Catch::Contains("diverged") && Catch::Contains("at step 1"));
}
