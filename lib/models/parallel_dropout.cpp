#include "models/parallel_dropout.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <ATen/record_function.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "models/dropout_mask.h"

namespace capaboost {
namespace {

// Element i keeps iff the 32-bit half i%2 of draw i/2 is ≥ threshold = round(p·2³²) (models/dropout_mask.h).
// Both kernels below take a span: src and dst point at element 2·first_pair, `count` elements follow, and
// out[j] = keep(2·first_pair + j) ? in[j]·scale : 0.
template <typename scalar_t>
void mask_span(const scalar_t* src, scalar_t* dst, int64_t first_pair, int64_t count, uint64_t seed,
               uint64_t threshold, scalar_t scale) {
  for (int64_t j = 0; j < count; j += 2) {
    const uint64_t bits = dropout_draw(seed, static_cast<uint64_t>(first_pair + j / 2));
    dst[j] = (bits & 0xFFFFFFFFULL) >= threshold ? src[j] * scale : scalar_t(0);
    if (j + 1 < count) dst[j + 1] = (bits >> 32) >= threshold ? src[j + 1] * scale : scalar_t(0);
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// The same mask, eight draws (sixteen float elements) per iteration with AVX-512. The build targets
// generic x86-64, where the 64-bit multiplies of SplitMix64 run one at a time; this was 9% of the MiniLM
// LoRA step (bench/minilm_step_bench.cpp). A 64-bit draw's low and high halves sit in memory as two
// consecutive 32-bit lanes, which is exactly elements 2·pair and 2·pair + 1: one unsigned 32-bit compare
// gives the sixteen elements' keep bits in order, so the result is bit for bit the scalar loop's.
// Returns how many elements it did (a multiple of 16; the tail goes to mask_span).
__attribute__((target("avx512f,avx512dq"))) int64_t mask_span_avx512(const float* src, float* dst, int64_t first_pair,
                                                                     int64_t count, uint64_t seed, uint32_t threshold,
                                                                     float scale) {
  const __m512i lanes = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i golden = _mm512_set1_epi64(static_cast<int64_t>(0x9E3779B97F4A7C15ULL));
  const __m512i mix1 = _mm512_set1_epi64(static_cast<int64_t>(0xBF58476D1CE4E5B9ULL));
  const __m512i mix2 = _mm512_set1_epi64(static_cast<int64_t>(0x94D049BB133111EBULL));
  const __m512i seeds = _mm512_set1_epi64(static_cast<int64_t>(seed));
  const __m512i thresholds = _mm512_set1_epi32(static_cast<int32_t>(threshold));
  const __m512 scales = _mm512_set1_ps(scale);
  // Shifts are written masked-with-zero (all lanes kept): GCC 12 warns on the plain form's undefined source.
  int64_t j = 0;
  for (; j + 16 <= count; j += 16) {
    const __m512i counters = _mm512_add_epi64(_mm512_set1_epi64(first_pair + j / 2 + 1), lanes);  // counter + 1
    __m512i z = _mm512_add_epi64(seeds, _mm512_mullo_epi64(counters, golden));
    z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_maskz_srli_epi64(0xFF, z, 30)), mix1);
    z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_maskz_srli_epi64(0xFF, z, 27)), mix2);
    z = _mm512_xor_si512(z, _mm512_maskz_srli_epi64(0xFF, z, 31));
    const __mmask16 keep = _mm512_cmpge_epu32_mask(z, thresholds);
    _mm512_storeu_ps(dst + j, _mm512_maskz_mul_ps(keep, _mm512_loadu_ps(src + j), scales));
  }
  return j;
}

bool cpu_has_avx512dq() {
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
  return has;
}
#endif

// The span's mask with the fastest kernel this CPU and dtype have: AVX-512 for float32 where present.
template <typename scalar_t>
void mask_span_fast(const scalar_t* src, scalar_t* dst, int64_t first_pair, int64_t count, uint64_t seed,
                    uint64_t threshold, scalar_t scale) {
  mask_span(src, dst, first_pair, count, seed, threshold, scale);
}

template <>
void mask_span_fast<float>(const float* src, float* dst, int64_t first_pair, int64_t count, uint64_t seed,
                           uint64_t threshold, float scale) {
  int64_t done = 0;
#if defined(__x86_64__) && defined(__GNUC__)
  // A threshold of 2³² (p within 2⁻³³ of 1) does not fit the 32-bit compare: the scalar loop takes it.
  if (cpu_has_avx512dq() && threshold <= 0xFFFFFFFFULL)
    done = mask_span_avx512(src, dst, first_pair, count, seed, static_cast<uint32_t>(threshold), scale);
#endif
  mask_span(src + done, dst + done, first_pair + done / 2, count - done, seed, threshold, scale);
}

// out = in with the dropout mask of `seed` applied and the kept elements scaled: the forward (in = x) and
// the backward (in = grad, same seed, so the same mask).
void apply_mask(const torch::Tensor& in, torch::Tensor& out, double p, uint64_t seed) {
  RECORD_FUNCTION("capaboost::dropout_mask", std::vector<c10::IValue>());  // named in profiler traces
  const uint64_t threshold = dropout_threshold(p);
  const double scale = 1.0 / (1.0 - p);
  const int64_t n = in.numel();
  AT_DISPATCH_FLOATING_TYPES_AND2(torch::kHalf, torch::kBFloat16, in.scalar_type(), "parallel_dropout", [&] {
    const auto s = static_cast<scalar_t>(scale);
    const scalar_t* src = in.data_ptr<scalar_t>();
    scalar_t* dst = out.data_ptr<scalar_t>();
    // Even chunk boundaries: each 64-bit draw serves two neighbouring elements.
    at::parallel_for(0, (n + 1) / 2, /*grain_size=*/8192, [&](int64_t begin, int64_t end) {
      mask_span_fast<scalar_t>(src + 2 * begin, dst + 2 * begin, begin, std::min(n, 2 * end) - 2 * begin, seed,
                               threshold, s);
    });
  });
}

class ParallelDropoutFunction : public torch::autograd::Function<ParallelDropoutFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x, double p,
                               int64_t seed) {
    ctx->saved_data["p"] = p;
    ctx->saved_data["seed"] = seed;
    const auto in = x.contiguous();
    auto out = torch::empty_like(in);
    apply_mask(in, out, p, static_cast<uint64_t>(seed));
    return out;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    const auto grad = grads[0].contiguous();
    auto grad_x = torch::empty_like(grad);
    apply_mask(grad, grad_x, ctx->saved_data["p"].toDouble(), static_cast<uint64_t>(ctx->saved_data["seed"].toInt()));
    return {grad_x, torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

void apply_dropout_mask(const float* src, float* dst, int64_t first, int64_t count, uint64_t seed, uint64_t threshold,
                        float scale) {
  if (count > 0 && first % 2 == 1) {
    // A span starting on the second half of a draw (rows of odd width): that element alone, then pairs.
    dst[0] = dropout_keeps(seed, threshold, first) ? src[0] * scale : 0.0f;
    ++src, ++dst, ++first, --count;
  }
  mask_span_fast<float>(src, dst, first / 2, count, seed, threshold, scale);
}

torch::Tensor parallel_dropout(const torch::Tensor& x, double p, uint64_t seed) {
  TORCH_CHECK(p >= 0.0 && p < 1.0, "dropout probability must be in [0, 1), got ", p);
  TORCH_CHECK(x.device().is_cpu(), "parallel_dropout runs on the CPU; got a tensor on ", x.device(),
              " (ParallelDropout uses the device's own dropout there)");
  // The seed travels through autograd's saved data as an int64; the bit pattern is what matters.
  return ParallelDropoutFunction::apply(x, p, static_cast<int64_t>(seed));
}

uint64_t next_dropout_seed() {
  auto generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  return generator.get<at::CPUGeneratorImpl>()->random64();
}

ParallelDropoutImpl::ParallelDropoutImpl(const ParallelDropoutOptions& options_) : options(options_) {
  TORCH_CHECK(options.p() >= 0.0 && options.p() < 1.0, "ParallelDropout: p must be in [0, 1), got ",
              options.p());
}

torch::Tensor ParallelDropoutImpl::forward(const torch::Tensor& x) {
  if (!is_training() || options.p() == 0.0) return x;
  // The counter-based mask is a CPU kernel; other devices have fast generators of their own (their
  // masks differ from the CPU's, as any device's random streams do).
  if (!x.device().is_cpu()) return torch::dropout(x, options.p(), /*train=*/true);
  return parallel_dropout(x, options.p(), next_dropout_seed());
}

void ParallelDropoutImpl::pretty_print(std::ostream& stream) const {
  stream << "capaboost::ParallelDropout(p=" << options.p() << ")";
}

}  // namespace capaboost
