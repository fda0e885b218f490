#include "models/dropout_packing.h"

#include <ATen/CPUGeneratorImpl.h>
#include <c10/util/Exception.h>

#include <mutex>

namespace capaboost {
namespace {

// Thread-local: packed runs train on one thread's forward; other threads' dropout is their own.
thread_local int64_t tiling = 1;
thread_local DropoutSeedReplay* innermost_replay = nullptr;

uint64_t draw_from_default_generator() {
  auto generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  return generator.get<at::CPUGeneratorImpl>()->random64();
}

}  // namespace

DropoutTiling::DropoutTiling(int64_t copies) : previous_(tiling) {
  TORCH_CHECK(copies >= 1, "DropoutTiling: copies must be at least 1, got ", copies);
  tiling = copies;
}

DropoutTiling::~DropoutTiling() { tiling = previous_; }

int64_t dropout_tiling() { return tiling; }

DropoutSeedReplay::DropoutSeedReplay() : outer_(innermost_replay) { innermost_replay = this; }

DropoutSeedReplay::~DropoutSeedReplay() { innermost_replay = outer_; }

void DropoutSeedReplay::next_slice() {
  replaying_ = true;
  replayed_ = 0;
}

uint64_t next_dropout_seed() {
  DropoutSeedReplay* replay = innermost_replay;
  if (replay == nullptr) return draw_from_default_generator();
  if (replay->replaying_) {
    TORCH_CHECK(replay->replayed_ < replay->seeds_.size(), "DropoutSeedReplay: a slice drew more dropout seeds (",
                replay->replayed_ + 1, ") than the first slice did (", replay->seeds_.size(),
                "); packed runs must run the same modules on every slice");
    return replay->seeds_[replay->replayed_++];
  }
  // The first slice draws, through any outer scope (which records or replays it in turn).
  innermost_replay = replay->outer_;
  const uint64_t seed = next_dropout_seed();
  innermost_replay = replay;
  replay->seeds_.push_back(seed);
  return seed;
}

}  // namespace capaboost
