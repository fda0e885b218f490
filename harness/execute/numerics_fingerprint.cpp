#include "execute/numerics_fingerprint.h"

#include "models/batched_matmul.h"
#include "models/dropout_residual_layer_norm.h"
#include "models/exact_gelu.h"
#include "models/fused_attention.h"
#include "models/masked_softmax_dropout.h"
#include "models/parallel_dropout.h"
#include "peft/lora.h"
#include "runtime/precision.h"
#include "train/multi_tensor_adamw.h"
#include "util/sha256.h"

#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>

#include <mutex>

namespace capaboost::harness {
namespace {

// The inputs of every probe come from torch's generator after this seed, so a probe's digest depends
// on nothing but the arithmetic.
constexpr uint64_t kProbeSeed = 20261207;
// Dropout masks of the fused kernels are drawn from their own seed argument, fixed here.
constexpr uint64_t kDropoutSeed = 0x5eed;

// Leaf tensors that record gradients, drawn from torch's generator.
torch::Tensor leaf(torch::IntArrayRef shape) { return torch::randn(shape).requires_grad_(true); }

// The bits of `tensors`, each as float32 (bf16 widens exactly) or its own integer bytes, with its shape.
std::string tensor_bytes(const std::vector<torch::Tensor>& tensors) {
  std::string bytes;
  for (auto tensor : tensors) {
    TORCH_CHECK(tensor.defined(), "numerics fingerprint: a probe returned an undefined tensor");
    tensor = tensor.detach().cpu();
    if (tensor.is_floating_point()) tensor = tensor.to(torch::kFloat32);
    tensor = tensor.contiguous();
    bytes += fmt::format("{}:", fmt::join(tensor.sizes(), "x"));
    bytes.append(static_cast<const char*>(tensor.data_ptr()), tensor.numel() * tensor.element_size());
  }
  return bytes;
}

// Output and input gradients of `output`, backpropagated from a fixed weighting of its elements (a
// plain sum would leave the gradient of a softmax or LayerNorm at exactly 0).
std::vector<torch::Tensor> with_gradients(const torch::Tensor& output, const std::vector<torch::Tensor>& inputs) {
  const auto weights = torch::linspace(-1.0, 1.0, output.numel()).reshape(output.sizes());
  (output * weights).sum().backward();
  std::vector<torch::Tensor> tensors{output};
  for (const auto& input : inputs) tensors.push_back(input.grad());
  return tensors;
}

std::vector<torch::Tensor> gemm_probe() {
  // Big enough that OpenBLAS takes its blocked kernel (a 384-wide projection, MiniLM's width), and a
  // small one as attention heads make.
  auto x = leaf({64, 384});
  auto w = leaf({384, 384});
  auto b = leaf({384});
  auto tensors = with_gradients(torch::linear(x, w, b), {x, w, b});
  tensors.push_back(torch::mm(torch::randn({7, 13}), torch::randn({13, 5})));
  return tensors;
}

std::vector<torch::Tensor> batched_matmul_probe() {
  auto a = leaf({2, 3, 9, 16});
  auto b = leaf({2, 3, 16, 11});
  return with_gradients(batched_matmul(a, b, 0.25), {a, b});
}

std::vector<torch::Tensor> fused_attention_probe() {
  auto q = leaf({2, 3, 7, 16});
  auto k = leaf({2, 3, 7, 16});
  auto v = leaf({2, 3, 7, 16});
  auto mask = torch::zeros({2, 1, 1, 7});
  mask.index_put_({1, 0, 0, torch::indexing::Slice(5, 7)}, std::numeric_limits<float>::lowest());
  TORCH_CHECK(fused_attention_applies(q, k, v, mask), "numerics fingerprint: fused attention declined its probe");
  return with_gradients(fused_attention(q, k, v, mask, 0.25, 0.1, kDropoutSeed), {q, k, v});
}

std::vector<torch::Tensor> masked_softmax_dropout_probe() {
  auto scores = leaf({2, 3, 7, 7});
  auto mask = torch::zeros({2, 1, 1, 7});
  mask.index_put_({0, 0, 0, 6}, std::numeric_limits<float>::lowest());
  TORCH_CHECK(masked_softmax_dropout_applies(scores, mask), "numerics fingerprint: masked softmax declined its probe");
  return with_gradients(masked_softmax_dropout(scores, mask, 0.1, kDropoutSeed), {scores});
}

std::vector<torch::Tensor> exact_gelu_probe() {
  // Far into both tails as well as the middle: the tails are where GELU implementations differ.
  auto x = (torch::linspace(-12.0, 12.0, 1001) + 0.01 * torch::randn({1001})).detach().requires_grad_(true);
  TORCH_CHECK(exact_gelu_applies(x), "numerics fingerprint: exact GELU declined its probe");
  return with_gradients(exact_gelu(x), {x});
}

std::vector<torch::Tensor> layer_norm_probe() {
  auto x = leaf({2, 7, 48});
  auto residual = leaf({2, 7, 48});
  auto weight = (1.0 + 0.1 * torch::randn({48})).detach().requires_grad_(true);
  auto bias = leaf({48});
  TORCH_CHECK(dropout_residual_layer_norm_applies(x, residual, weight, bias),
              "numerics fingerprint: dropout + residual + LayerNorm declined its probe");
  return with_gradients(dropout_residual_layer_norm(x, residual, 0.1, kDropoutSeed, weight, bias, 1e-12),
                        {x, residual, weight, bias});
}

std::vector<torch::Tensor> dropout_stream_probe() {
  auto x = leaf({3, 257});
  auto tensors = with_gradients(parallel_dropout(x, 0.1, kDropoutSeed), {x});
  // The seed a module draws for its next mask comes from torch's generator.
  tensors.push_back(torch::tensor(static_cast<int64_t>(next_dropout_seed())));
  return tensors;
}

std::vector<torch::Tensor> capaboost_lora_probe() {
  // CapaBoost-LoRA d=2 with different masks at density 0.5: the stacked, masked factor products.
  const auto options = LoraOptions(4).alpha(8.0).capaboost(
      CapaBoostOptions().branches(2).mask(MaskOptions().kind(MaskKind::kDiff).density(0.5).seed(3)));
  Lora lora(options, "probe.query", 24, 24);
  {
    torch::NoGradGuard no_grad;
    lora->B.normal_();  // B starts at 0: give the product something to carry
  }
  auto x = leaf({2, 5, 24});
  const auto y = torch::randn({2, 5, 24});
  auto tensors = with_gradients(lora->adapt(x, y), {x});
  tensors.push_back(lora->A.grad());
  tensors.push_back(lora->B.grad());
  return tensors;
}

std::vector<torch::Tensor> adamw_probe() {
  std::vector<torch::Tensor> parameters{torch::randn({33, 7}).requires_grad_(true), torch::randn({7}).requires_grad_(true)};
  MultiTensorAdamW optimizer(parameters, torch::optim::AdamWOptions(1e-3).weight_decay(0.1));
  for (int step = 0; step < 3; ++step) {
    optimizer.zero_grad();
    (parameters[0].sin().sum() + (parameters[1] * parameters[1]).sum()).backward();
    optimizer.step();
  }
  return {parameters[0], parameters[1]};
}

std::vector<torch::Tensor> random_streams_probe() {
  // Weights (normal, uniform), masks (bernoulli, randperm) and data order (randperm) as runs draw them.
  return {torch::randn({1000}), torch::rand({1000}), torch::empty({1000}).uniform_(-0.5, 0.5),
          torch::bernoulli(torch::full({500}, 0.3)), torch::randperm(1000), torch::randint(0, 1 << 30, {100})};
}

std::vector<torch::Tensor> bf16_probe() {
  // Runs with `precision: bf16` multiply in bf16; a CPU without native bf16 cannot run them (runtime/precision.h).
  if (runtime::cpu_bf16_support().empty()) return {torch::tensor(0)};
  const auto a = torch::randn({32, 64}).to(torch::kBFloat16);
  const auto b = torch::randn({64, 48}).to(torch::kBFloat16);
  return {torch::mm(a, b)};
}

}  // namespace

std::vector<NumericsProbe> default_numerics_probes() {
  return {{"gemm", gemm_probe},
          {"batched_matmul", batched_matmul_probe},
          {"fused_attention", fused_attention_probe},
          {"masked_softmax_dropout", masked_softmax_dropout_probe},
          {"exact_gelu", exact_gelu_probe},
          {"dropout_residual_layer_norm", layer_norm_probe},
          {"dropout_stream", dropout_stream_probe},
          {"capaboost_lora", capaboost_lora_probe},
          {"adamw", adamw_probe},
          {"random_streams", random_streams_probe},
          {"bf16_matmul", bf16_probe}};
}

nlohmann::json NumericsFingerprint::to_json() const { return {{"fingerprint", digest}, {"probes", probes}}; }

NumericsFingerprint numerics_fingerprint(const std::vector<NumericsProbe>& probes) {
  auto generator = at::detail::getDefaultCPUGenerator();
  const auto saved_state = generator.get_state();
  NumericsFingerprint fingerprint;
  std::string digests;
  try {
    torch::NoGradGuard no_outer_grad_mode_leak;  // restored on exit; probes enable what they need
    torch::AutoGradMode grad_on(true);
    for (const auto& probe : probes) {
      torch::manual_seed(kProbeSeed);
      const std::string digest = sha256_hex(tensor_bytes(probe.compute()));
      fingerprint.probes[probe.name] = digest;
      digests += probe.name + "=" + digest + "\n";
    }
  } catch (...) {
    generator.set_state(saved_state);
    throw;
  }
  generator.set_state(saved_state);
  fingerprint.digest = sha256_hex(digests);
  return fingerprint;
}

const NumericsFingerprint& this_process_numerics() {
  static std::once_flag once;
  static NumericsFingerprint fingerprint;
  std::call_once(once, [] { fingerprint = numerics_fingerprint(default_numerics_probes()); });
  return fingerprint;
}

}  // namespace capaboost::harness

namespace capaboost::harness {

NumericsFingerprint numerics_with_threads(int threads) {
  const int before = torch::get_num_threads();
  if (threads == before) return this_process_numerics();
  torch::set_num_threads(threads);
  try {
    NumericsFingerprint fingerprint = numerics_fingerprint(default_numerics_probes());
    torch::set_num_threads(before);
    return fingerprint;
  } catch (...) {
    torch::set_num_threads(before);
    throw;
  }
}

}  // namespace capaboost::harness
