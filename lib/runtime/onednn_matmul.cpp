#include "runtime/onednn_matmul.h"

#include <oneapi/dnnl/dnnl.hpp>

// oneDNN 3 reworked this API (no output scales, no matmul::desc). The oneDNN linked is the system's
// (Debian's 2.x); a LibTorch 2.x wheel puts the headers of its own oneDNN 3 ahead of the system's in the
// include path and keeps that library private, so under those headers the oneDNN path is left out and
// the batched products take LibTorch's (models/batched_matmul.cpp falls back when this declines).
#if DNNL_VERSION_MAJOR >= 3

namespace capaboost::runtime {

bool onednn_matmul_available() { return false; }

bool onednn_batched_matmul(const torch::Tensor&, const torch::Tensor&, torch::Tensor&, double) { return false; }

}  // namespace capaboost::runtime

#else

namespace capaboost::runtime {
namespace {

dnnl::memory::desc strided_desc(const torch::Tensor& t) {
  return dnnl::memory::desc(dnnl::memory::dims(t.sizes().begin(), t.sizes().end()), dnnl::memory::data_type::f32,
                            dnnl::memory::dims(t.strides().begin(), t.strides().end()));
}

}  // namespace

bool onednn_matmul_available() { return true; }

bool onednn_batched_matmul(const torch::Tensor& a, const torch::Tensor& b, torch::Tensor& out, double alpha) {
  if (a.scalar_type() != torch::kFloat || b.scalar_type() != torch::kFloat || out.scalar_type() != torch::kFloat ||
      a.dim() > 12) {
    return false;
  }
  try {
    static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    // A stream per thread: oneDNN streams are not shared between threads that submit at once.
    thread_local dnnl::stream stream(engine);
    dnnl::primitive_attr attr;
    attr.set_output_scales(0, {static_cast<float>(alpha)});
    // oneDNN's primitive cache makes this a lookup (~4 µs) after the first call with a shape and layout.
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(strided_desc(a), strided_desc(b), strided_desc(out)), attr,
                                          engine);
    // oneDNN reads src and weights only; its memory objects take non-const handles.
    dnnl::memory src(pd.src_desc(), engine, const_cast<void*>(a.data_ptr()));
    dnnl::memory weights(pd.weights_desc(), engine, const_cast<void*>(b.data_ptr()));
    dnnl::memory dst(pd.dst_desc(), engine, out.data_ptr());
    dnnl::matmul(pd).execute(stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}});
    stream.wait();
    return true;
  } catch (const dnnl::error&) {
    return false;
  }
}

}  // namespace capaboost::runtime

#endif  // DNNL_VERSION_MAJOR
