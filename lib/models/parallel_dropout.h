#pragma once
// Dropout whose mask comes from a counter-based generator, drawn by all threads at once.
//
// Why not torch::nn::Dropout: LibTorch 1.13 built without MKL (Debian's) draws the mask with
// bernoulli_ one element at a time from a single Mersenne Twister, on one thread: about 5 ns per
// element, 9% of a RoBERTa-base LoRA step in PyTorch (~77M elements through dropout per step). Here element i
// keeps iff bits(seed, i) ≥ p·2³², with bits the SplitMix64 output for counter i: the mask depends only on
// the seed and the position, so it is the same for any thread count, and its generation parallelises.
// The seed is drawn from torch's default CPU generator, so torch::manual_seed makes runs repeatable.
// Backward regenerates the mask from the seed instead of storing it.

#include <torch/torch.h>

#include <cstdint>

namespace capaboost {

/// x with each element zeroed with probability p and the others scaled by 1/(1-p) (inverted dropout,
/// as torch::dropout), using the mask of `seed`. Differentiable in x. p in [0, 1).
torch::Tensor parallel_dropout(const torch::Tensor& x, double p, uint64_t seed);

/// The seed of the next dropout mask, drawn from torch's default CPU generator (so torch::manual_seed
/// makes runs repeatable). Every module that drops with these masks draws its seed here, once per call.
uint64_t next_dropout_seed();

struct ParallelDropoutOptions {
  /* implicit */ ParallelDropoutOptions(double p = 0.5) : p_(p) {}
  TORCH_ARG(double, p);
};

/// Drop-in for torch::nn::Dropout: identity in eval mode (and for p = 0); in training, a fresh mask
/// per call, seeded from torch's default generator. On devices other than the CPU it is torch::dropout.
class ParallelDropoutImpl : public torch::nn::Module {
 public:
  explicit ParallelDropoutImpl(const ParallelDropoutOptions& options = {});
  /// x: any shape → same shape.
  torch::Tensor forward(const torch::Tensor& x);
  void pretty_print(std::ostream& stream) const override;

  ParallelDropoutOptions options;
};
TORCH_MODULE(ParallelDropout);

}  // namespace capaboost
