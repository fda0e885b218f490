#pragma once
// How ParallelDropout (models/parallel_dropout.h) behaves when several runs train packed into one
// batch (train/run_pack.h), so that each run sees exactly the dropout masks it sees training alone.
//
// Packed runs share a seed and a data order and differ only in what they train (learning rate, masks):
// the shared encoder sees `copies` equal slices stacked along the batch dimension. Under a
// DropoutTiling scope a dropout call draws one seed, as the run alone does, and applies the mask of
// one slice to every slice. Where each run's own modules run on its own slice (its tuners, its head),
// one after the other, a DropoutSeedReplay scope makes the second and later slices reuse the seeds
// the first slice drew, in order — the run alone draws them once.

#include <cstdint>
#include <vector>

namespace capaboost {

/// Within its scope, dropout masks repeat every numel/copies elements (the tensor's first dimension
/// holds `copies` equal slices). Scopes nest; the innermost wins. copies = 1 is the plain behaviour.
class DropoutTiling {
 public:
  explicit DropoutTiling(int64_t copies);
  ~DropoutTiling();
  DropoutTiling(const DropoutTiling&) = delete;
  DropoutTiling& operator=(const DropoutTiling&) = delete;

 private:
  int64_t previous_;
};

/// The tiling of the innermost DropoutTiling scope of this thread (1 outside any).
int64_t dropout_tiling();

/// Within its scope, slices are run one after the other (next_slice() between them): the dropout
/// seeds slice 0 draws are recorded and slices 1, 2, … get the same seeds in the same order.
/// Scopes nest (a tuner's slices inside an encoder's); the innermost records and replays.
class DropoutSeedReplay {
 public:
  DropoutSeedReplay();
  ~DropoutSeedReplay();
  DropoutSeedReplay(const DropoutSeedReplay&) = delete;
  DropoutSeedReplay& operator=(const DropoutSeedReplay&) = delete;

  /// The next slice starts: it replays the recorded seeds from the first. Fails if a slice drew more
  /// seeds than slice 0 did (the slices did not run the same modules).
  void next_slice();

 private:
  DropoutSeedReplay* outer_;
  std::vector<uint64_t> seeds_;
  size_t replayed_ = 0;
  bool replaying_ = false;

  friend uint64_t next_dropout_seed();
};

/// The seed of the next dropout mask: drawn from torch's default CPU generator (so torch::manual_seed
/// makes runs repeatable), or replayed inside a DropoutSeedReplay scope.
uint64_t next_dropout_seed();

}  // namespace capaboost
