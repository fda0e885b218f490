#include "runtime/caching_cpu_allocator.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/alloc_cpu.h>
#include <torch/version.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace capaboost::runtime {
namespace {

constexpr std::size_t kMinCachedBytes = std::size_t{1} << 20;
constexpr std::size_t kPage = 4096;

// Rounds a request up to its size class: whole pages, then a multiple of 1/8 of the largest power of
// two not above it (at most 12.5% extra). Batches of varying length ask for slightly different sizes
// every step; classes make most of them land on a block that is already cached.
std::size_t size_class(std::size_t bytes) {
  const std::size_t pages = (bytes + kPage - 1) / kPage * kPage;
  std::size_t power = kPage;
  while (power * 2 <= pages) power *= 2;
  const std::size_t step = std::max(kPage, power / 8);
  return (pages + step - 1) / step * step;
}

// LibTorch 2.3 made Allocator::allocate non-const and added the pure virtual copy_data (checked against
// the headers of 1.13 and 2.11).
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 3)
#define CAPABOOST_ALLOCATOR_2_3 1
#define CAPABOOST_ALLOCATE_CONST
#else
#define CAPABOOST_ALLOCATOR_2_3 0
#define CAPABOOST_ALLOCATE_CONST const
#endif

class CachingCpuAllocator final : public c10::Allocator {
 public:
  CachingCpuAllocator(c10::Allocator* fallback, std::size_t max_cached_bytes)
      : fallback_(fallback), max_cached_bytes_(max_cached_bytes) {}

  c10::DataPtr allocate(std::size_t bytes) CAPABOOST_ALLOCATE_CONST override {
    if (bytes < kMinCachedBytes) return fallback_->allocate(bytes);
    const std::size_t wanted = size_class(bytes);
    void* data = nullptr;
    std::size_t size = wanted;
    std::vector<void*> evicted;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      // Best fit, but never a block more than 1.5× the request: a big block must not be tied up by a
      // small tensor while the big request that follows misses.
      auto found = free_.lower_bound(wanted);
      if (found != free_.end() && found->first <= wanted + wanted / 2) {
        size = found->first;
        data = found->second;
        free_.erase(found);
        stats_.cached_bytes -= size;
        ++stats_.hits;
      } else {
        ++stats_.misses;
        // A miss means the cached blocks below this size were left by shorter batches; without
        // eviction they would pile up to max_cached_bytes (GiBs of RSS for a 5M-parameter model).
        // Releasing about as many bytes as are allocated keeps the footprint near the working set.
        std::size_t released = 0;
        while (released < wanted && found != free_.begin()) {
          --found;
          released += found->first;
          stats_.cached_bytes -= found->first;
          evicted.push_back(found->second);
          found = free_.erase(found);
          ++stats_.evictions;
        }
      }
    }
    for (void* block : evicted) c10::free_cpu(block);
    if (data == nullptr) data = c10::alloc_cpu(size);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      live_[data] = size;
    }
    return {data, data, &release, c10::Device(c10::DeviceType::CPU)};
  }

  // raw_deallocate (ATen's scratch buffers) frees small blocks through this too: those belong to the
  // fallback allocator.
  c10::DeleterFnPtr raw_deleter() const override { return &release; }
#if CAPABOOST_ALLOCATOR_2_3
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    default_copy_data(dest, src, count);
  }
#endif

  CachingAllocatorStats stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }

  void empty() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [size, data] : free_) c10::free_cpu(data);
    free_.clear();
    stats_.cached_bytes = 0;
  }

  static CachingCpuAllocator* instance;

 private:
  static void release(void* data) { instance->give_back(data); }

  void give_back(void* data) {
    std::unique_lock<std::mutex> lock(mutex_);
    const auto found = live_.find(data);
    if (found == live_.end()) {
      lock.unlock();
      fallback_->raw_deleter()(data);
      return;
    }
    const std::size_t size = found->second;
    live_.erase(found);
    if (stats_.cached_bytes + size > max_cached_bytes_) {
      lock.unlock();
      c10::free_cpu(data);
      return;
    }
    free_.emplace(size, data);
    stats_.cached_bytes += size;
  }

  c10::Allocator* fallback_;
  std::size_t max_cached_bytes_;
  mutable std::mutex mutex_;
  mutable std::multimap<std::size_t, void*> free_;
  mutable std::unordered_map<void*, std::size_t> live_;
  mutable CachingAllocatorStats stats_;
};

CachingCpuAllocator* CachingCpuAllocator::instance = nullptr;

}  // namespace

void enable_caching_cpu_allocator(std::size_t max_cached_bytes) {
  static std::once_flag once;
  std::call_once(once, [&] {
    // Never destroyed: tensors alive at exit still hold its deleter.
    CachingCpuAllocator::instance = new CachingCpuAllocator(c10::GetCPUAllocator(), max_cached_bytes);
    // Priority 1 beats LibTorch's default registration (0).
    c10::SetCPUAllocator(CachingCpuAllocator::instance, /*priority=*/1);
  });
}

CachingAllocatorStats caching_allocator_stats() {
  return CachingCpuAllocator::instance ? CachingCpuAllocator::instance->stats() : CachingAllocatorStats{};
}

void empty_cpu_cache() {
  if (CachingCpuAllocator::instance) CachingCpuAllocator::instance->empty();
}

}  // namespace capaboost::runtime
