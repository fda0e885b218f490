#include "peft/lora.h"

#include <cmath>

namespace capaboost {

LoraInit parse_lora_init(const std::string& name) {
  for (const LoraInit init : {LoraInit::kPeft, LoraInit::kReference}) {
    if (to_string(init) == name) return init;
  }
  TORCH_CHECK(false, "unknown LoRA init '", name, "'; choose peft or reference");
}

std::string to_string(LoraInit init) { return init == LoraInit::kPeft ? "peft" : "reference"; }

std::vector<std::string> lora_init_names() { return {to_string(LoraInit::kPeft), to_string(LoraInit::kReference)}; }

LoraImpl::LoraImpl(const LoraOptions& options_, std::string site, int64_t in_features, int64_t out_features)
    : options(options_), stack_(options_.capaboost(), std::move(site)) {
  TORCH_CHECK(options.rank() > 0, "LoRA at site '", stack_.site(), "': rank must be positive, got ",
              options.rank());
  TORCH_CHECK(options.dropout() >= 0.0 && options.dropout() < 1.0, "LoRA at site '", stack_.site(),
              "': dropout must be in [0, 1), got ", options.dropout());
  A = register_parameter("A", torch::empty({options.rank(), in_features}));
  B = register_parameter("B", torch::zeros({out_features, options.rank()}));
  initialize_lora_a(A, options.init());
}

void initialize_lora_a(torch::Tensor& A, LoraInit init) {
  torch::NoGradGuard no_grad;
  if (init == LoraInit::kPeft) {
    torch::nn::init::kaiming_uniform_(A, std::sqrt(5.0));
  } else {
    const double bound = 1.0 / std::sqrt(static_cast<double>(A.size(0)));
    A.uniform_(-bound, bound);
  }
}

std::pair<torch::Tensor, torch::Tensor> LoraImpl::stacked_factors(bool training) {
  if (training) stack_.next_step();
  return {stack_.stack("A", A, /*branch_dim=*/0, training), stack_.stack("B", B, /*branch_dim=*/1, training)};
}

torch::Tensor LoraImpl::adapt(const torch::Tensor& x, const torch::Tensor& y) {
  auto [a_cat, b_cat] = stacked_factors(is_training());            // (d·r, in), (out, d·r)
  auto h = torch::dropout(x, options.dropout(), is_training());    // (…, in)
  auto low = torch::nn::functional::linear(h, a_cat);              // (…, d·r)
  // y + scale · low · B_catᵀ as one GEMM accumulating into a copy of y: no separate passes over (…, out)
  // for the scale and the sum, forward or backward (the d branches already sum inside the product).
  const auto rows = low.reshape({-1, low.size(-1)});  // (N, d·r)
  return torch::addmm(y.reshape({-1, y.size(-1)}), rows, b_cat.t(), /*beta=*/1.0, /*alpha=*/scale())
      .view(y.sizes());  // (…, out)
}

std::optional<torch::Tensor> LoraImpl::delta_weight() const {
  torch::NoGradGuard no_grad;
  auto a_cat = stack_.stack("A", A, 0, /*training=*/false).to(torch::kFloat64);
  auto b_cat = stack_.stack("B", B, 1, /*training=*/false).to(torch::kFloat64);
  return torch::mm(b_cat, a_cat) * scale();  // (out, in)
}

TunerParameterCount LoraImpl::parameter_count() const {
  return {A.numel() + B.numel(),
          stack_.effective_count("A", A.sizes()) + stack_.effective_count("B", B.sizes())};
}

TunerFlops LoraImpl::flops_per_token() const {
  const double in = A.size(1), out = B.size(0), r = A.size(0), d = stack_.branches();
  // Executed: x·A_catᵀ (2·in·d·r), ·B_catᵀ (2·d·r·out), scale and add (2·out).
  TunerFlops flops;
  flops.executed = 2.0 * in * d * r + 2.0 * d * r * out + 2.0 * out;
  // Ideal sparse: only kept entries of each branch's masked factors multiply.
  const double kept =
      static_cast<double>(stack_.kept_per_branch("A", A.sizes()) + stack_.kept_per_branch("B", B.sizes()));
  flops.sparse_ideal = 2.0 * d * kept + 2.0 * out;
  return flops;
}

}  // namespace capaboost
