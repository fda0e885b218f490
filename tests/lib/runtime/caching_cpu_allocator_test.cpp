#include "runtime/caching_cpu_allocator.h"

#include <torch/torch.h>

#include <catch2/catch.hpp>

using namespace capaboost::runtime;

// Enabling is process-wide and permanent: every later test in this executable allocates through the
// cache too, which is itself a check that the rest of the suite runs unchanged on it.
TEST_CASE("caching CPU allocator reuses freed large blocks and leaves small ones alone", "[allocator]") {
  enable_caching_cpu_allocator();
  enable_caching_cpu_allocator();  // idempotent
  empty_cpu_cache();
  const auto before = caching_allocator_stats();

  void* first_address = nullptr;
  {
    auto big = torch::ones({1024, 1024});  // 4 MiB
    first_address = big.data_ptr();
  }
  CHECK(caching_allocator_stats().cached_bytes == before.cached_bytes + (std::size_t{4} << 20));
  auto again = torch::empty({1024, 1024});
  CHECK(again.data_ptr() == first_address);  // the same block, no new memory
  CHECK(caching_allocator_stats().hits == before.hits + 1);
  CHECK(caching_allocator_stats().misses == before.misses + 1);

  // Reused memory is handed out as is: tensors that need zeros still get them.
  again.fill_(7);
  const void* seven = again.data_ptr();
  again = torch::Tensor();
  auto zeros = torch::zeros({1024, 1024});
  CHECK(zeros.data_ptr() == seven);
  CHECK(zeros.abs().sum().item<float>() == 0.0f);

  // Small tensors and ATen's scratch buffers (raw_allocate) go to LibTorch's own allocator.
  const auto small_before = caching_allocator_stats();
  auto small = torch::ones({16});
  CHECK(caching_allocator_stats().misses == small_before.misses);
  auto sorted = std::get<0>(torch::randn({300000}).sort());  // uses scratch space
  CHECK(sorted.size(0) == 300000);

  empty_cpu_cache();
  CHECK(caching_allocator_stats().cached_bytes == 0);
}

TEST_CASE("caching CPU allocator serves nearby sizes best-fit and does not hoard blocks of past sizes",
          "[allocator]") {
  enable_caching_cpu_allocator();
  empty_cpu_cache();
  const auto before = caching_allocator_stats();
  void* four_mib = nullptr;
  { four_mib = torch::empty({1 << 20}).data_ptr(); }  // 4 MiB, freed at once

  // 3.5 MiB fits in the cached 4 MiB block (within 1.5×): reused.
  void* smaller = nullptr;
  { smaller = torch::empty({(7 << 20) / 8}).data_ptr(); }
  CHECK(smaller == four_mib);
  CHECK(caching_allocator_stats().hits == before.hits + 1);

  // 1 MiB must not tie up the 4 MiB block: a miss, and nothing below 1 MiB to evict.
  auto one_mib = torch::empty({1 << 18});
  CHECK(one_mib.data_ptr() != four_mib);
  CHECK(caching_allocator_stats().misses == before.misses + 2);
  one_mib = torch::Tensor();

  // Growing sequence lengths, as in batches of increasing length: each miss evicts the blocks just
  // below it, so the cache holds a few recent blocks instead of the sum of all past sizes (210 MiB).
  empty_cpu_cache();
  const auto growing = caching_allocator_stats();
  for (int64_t mib = 1; mib <= 20; ++mib) torch::empty({mib << 18});
  CHECK(caching_allocator_stats().cached_bytes <= (std::size_t{48} << 20));
  CHECK(caching_allocator_stats().evictions > growing.evictions);
  empty_cpu_cache();
}
