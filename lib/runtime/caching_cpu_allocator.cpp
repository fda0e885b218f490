#include "runtime/caching_cpu_allocator.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/alloc_cpu.h>

#include <map>
#include <mutex>
#include <unordered_map>

namespace capaboost::runtime {
namespace {

constexpr std::size_t kMinCachedBytes = std::size_t{1} << 20;
constexpr std::size_t kPage = 4096;

class CachingCpuAllocator final : public c10::Allocator {
 public:
  CachingCpuAllocator(c10::Allocator* fallback, std::size_t max_cached_bytes)
      : fallback_(fallback), max_cached_bytes_(max_cached_bytes) {}

  c10::DataPtr allocate(std::size_t bytes) const override {
    if (bytes < kMinCachedBytes) return fallback_->allocate(bytes);
    const std::size_t size = (bytes + kPage - 1) / kPage * kPage;
    void* data = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto found = free_.find(size); found != free_.end()) {
        data = found->second;
        free_.erase(found);
        stats_.cached_bytes -= size;
        ++stats_.hits;
      } else {
        ++stats_.misses;
      }
    }
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
