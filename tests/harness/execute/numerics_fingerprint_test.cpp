// The numerics fingerprint: repeatable, blind to what happened before it in the process, and changed by a
// rounding-level change in one kernel — here fused attention with its softmax taken in double, equal to
// the fused kernel up to float rounding. (The suite's own unfused composition, and ATen's float one,
// give the fused kernel's bits exactly at the probe's shape: only a change of arithmetic shows.)

#include "execute/numerics_fingerprint.h"

#include "models/fused_attention.h"
#include "models/parallel_dropout.h"

#include <catch2/catch.hpp>

using namespace capaboost::harness;

namespace {

// Attention whose softmax is taken in double and rounded once to float — the kind of change a kernel
// gets when someone makes it more accurate — through ATen's products, with the suite's dropout mask.
torch::Tensor aten_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                             const torch::Tensor& mask, double p, uint64_t seed) {
  auto scores = torch::matmul(q, k.transpose(-1, -2)) * 0.25;
  if (mask.defined()) scores = scores + mask;
  auto probabilities = torch::softmax(scores.to(torch::kFloat64), -1).to(torch::kFloat32);
  if (p > 0) probabilities = capaboost::parallel_dropout(probabilities, p, seed);
  return torch::matmul(probabilities, v);
}

// The fused-attention probe's inputs and dropout seed, through ATen's composition instead.
std::vector<torch::Tensor> aten_attention_probe() {
  auto q = torch::randn({2, 3, 7, 16}).requires_grad_(true);
  auto k = torch::randn({2, 3, 7, 16}).requires_grad_(true);
  auto v = torch::randn({2, 3, 7, 16}).requires_grad_(true);
  auto mask = torch::zeros({2, 1, 1, 7});
  mask.index_put_({1, 0, 0, torch::indexing::Slice(5, 7)}, std::numeric_limits<float>::lowest());
  const auto output = aten_attention(q, k, v, mask, 0.1, 0x5eed);
  const auto weights = torch::linspace(-1.0, 1.0, output.numel()).reshape(output.sizes());
  (output * weights).sum().backward();
  return {output, q.grad(), k.grad(), v.grad()};
}

std::vector<NumericsProbe> with_probe(const std::string& name, std::function<std::vector<torch::Tensor>()> compute) {
  auto probes = default_numerics_probes();
  for (auto& probe : probes) {
    if (probe.name == name) probe.compute = std::move(compute);
  }
  return probes;
}

}  // namespace

TEST_CASE("the numerics fingerprint is repeatable and leaves torch's generator as it found it",
          "[harness][execute][numerics]") {
  const auto& once = this_process_numerics();
  REQUIRE(once.digest.size() == 64);
  CHECK(once.probes.size() == default_numerics_probes().size());
  torch::manual_seed(7);
  (void)torch::randn({100});  // what a run did before: the probes seed themselves
  const auto before = torch::randn({4});
  torch::manual_seed(7);
  (void)torch::randn({100});
  const auto again = numerics_fingerprint(default_numerics_probes());
  CHECK(again.digest == once.digest);
  CHECK(again.probes == once.probes);
  CHECK(torch::equal(torch::randn({4}), before));  // the generator continues where it was
}

TEST_CASE("a rounding-level change in one kernel changes the fingerprint, and only that probe's digest",
          "[harness][execute][numerics]") {
  // The changed kernel computes the same attention: within float rounding of the fused kernel, and (the
  // point of the test) not bit for bit equal to it.
  torch::manual_seed(1);
  auto q = torch::randn({2, 3, 7, 16});
  auto k = torch::randn({2, 3, 7, 16});
  auto v = torch::randn({2, 3, 7, 16});
  const auto fused = capaboost::fused_attention(q, k, v, torch::Tensor(), 0.25, 0.0, 0);
  const auto composed = aten_attention(q, k, v, torch::Tensor(), 0.0, 0);
  REQUIRE(torch::allclose(fused, composed, 1e-5, 1e-6));
  REQUIRE_FALSE(torch::equal(fused.contiguous(), composed.contiguous()));

  const auto reference = numerics_fingerprint(default_numerics_probes());
  const auto changed = numerics_fingerprint(with_probe("fused_attention", aten_attention_probe));
  CHECK(changed.digest != reference.digest);
  for (const auto& [name, digest] : reference.probes) {
    INFO(name);
    CHECK((changed.probes.at(name) == digest) == (name != "fused_attention"));
  }
}

TEST_CASE("a sweep's parent asks for its workers' fingerprint at their thread count and keeps its own threads",
          "[harness][execute][numerics]") {
  const int threads = torch::get_num_threads();
  CHECK(numerics_with_threads(threads).digest == this_process_numerics().digest);
  const auto one = numerics_with_threads(1);
  CHECK(torch::get_num_threads() == threads);
  CHECK(one.digest == numerics_with_threads(1).digest);
  // Whether one thread's bits differ from several's depends on the BLAS and the cores (they do on two
  // cores with OpenBLAS: the gemm probe); every probe but gemm computes on one thread at this size.
  for (const auto& [name, digest] : one.probes) {
    INFO(name);
    if (name != "gemm") CHECK(digest == this_process_numerics().probes.at(name));
  }
}
