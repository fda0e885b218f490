#pragma once
// Seeded permutations that are identical on every platform, compiler and process — and identical to
// the reference code's: the ProPETL/CapaBoost data splits call
// `torch.randperm(n, generator=torch.Generator().manual_seed(42))`, so reproducing that permutation
// exactly puts the same examples in our eval and test halves as in the paper's runs.
//
// Algorithm (documented so it can be re-implemented anywhere): a 32-bit Mersenne Twister MT19937
// seeded with the low 32 bits of `seed` (standard init_genrand, as both std::mt19937 and PyTorch's CPU
// generator do), then a forward Fisher–Yates shuffle of 0..n-1:
//   for i in 0 .. n-2:  j = i + (next_u32() mod (n - i));  swap(p[i], p[j])
// This is PyTorch's CPU randperm for n < 2^32/20 (the modulo bias is below n/2^32, i.e. < 1e-4 for all
// GLUE sizes). std::shuffle and std::uniform_int_distribution are avoided on purpose: their output is
// implementation-defined; only the MT19937 engine's output sequence is fixed by the C++ standard.

#include <cstdint>
#include <vector>

namespace capaboost {

/// Largest n seeded_permutation accepts: PyTorch switches algorithm at 2^32/20.
constexpr int64_t kMaxSeededPermutationSize = 214748364;

/// The permutation of 0..n-1 that torch.randperm(n) draws on CPU from a generator seeded with `seed`.
std::vector<int64_t> seeded_permutation(int64_t n, uint64_t seed);

/// A well-mixed 64-bit seed for stream `stream` (e.g. an epoch) of run seed `seed` (splitmix64 of both),
/// so that neighbouring seeds and epochs give unrelated permutations.
uint64_t derive_seed(uint64_t seed, uint64_t stream);

}  // namespace capaboost
