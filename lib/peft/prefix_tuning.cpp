#include "peft/prefix_tuning.h"

#include <vector>

#include "sites/site_registry.h"

namespace capaboost {

PrefixEncoderImpl::PrefixEncoderImpl(int64_t length, int64_t width, int64_t mlp_hidden, int64_t layers)
    : width_(width), layers_(layers) {
  TORCH_CHECK(length > 0 && width > 0 && mlp_hidden > 0 && layers > 0,
              "PrefixEncoder: length, width, MLP width and layer count must be positive, got ", length, ", ", width,
              ", ", mlp_hidden, ", ", layers);
  embedding = register_parameter("embedding", torch::randn({length, width}));
  down = register_module("down", torch::nn::Linear(width, mlp_hidden));
  up = register_module("up", torch::nn::Linear(mlp_hidden, layers * 2 * width));
}

torch::Tensor PrefixEncoderImpl::layer_prefix(int64_t layer) {
  TORCH_CHECK(layer >= 0 && layer < layers_, "PrefixEncoder: layer ", layer, " outside [0, ", layers_, ")");
  // Only this layer's 2·C rows of the up-projection: every layer computes its own slice, so no layer
  // pays for the others' (the shared tanh(E W₁ᵀ + b₁) is l × mlp_hidden, cheap to recompute).
  const auto hidden = torch::tanh(down->forward(embedding));  // (l, mlp_hidden)
  const auto rows = up->weight.narrow(0, layer * 2 * width_, 2 * width_);
  const auto bias = up->bias.narrow(0, layer * 2 * width_, 2 * width_);
  return torch::nn::functional::linear(hidden, rows, bias);  // (l, 2C): keys then values
}

PrefixTuningImpl::PrefixTuningImpl(PrefixEncoder encoder, int64_t layer, bool owns_encoder, int64_t num_heads,
                                   int64_t head_size)
    : encoder_(std::move(encoder)),
      layer_(layer),
      owns_encoder_(owns_encoder),
      length_(0),
      num_heads_(num_heads),
      head_size_(head_size) {
  TORCH_CHECK(!encoder_.is_empty(), "PrefixTuning: null prefix encoder");
  TORCH_CHECK(layer >= 0 && layer < encoder_->layers(), "PrefixTuning: layer ", layer, " but the encoder serves ",
              encoder_->layers(), " layers");
  TORCH_CHECK(encoder_->embedding.size(1) == num_heads * head_size, "PrefixTuning: the encoder's width ",
              encoder_->embedding.size(1), " differs from the attention site's ", num_heads, " heads × ", head_size);
  length_ = encoder_->embedding.size(0);
  if (owns_encoder_) register_module("encoder", encoder_);
}

PrefixTuningImpl::PrefixTuningImpl(int64_t length, int64_t num_heads, int64_t head_size)
    : length_(length), num_heads_(num_heads), head_size_(head_size) {
  TORCH_CHECK(length > 0, "PrefixTuning: the prefix length must be positive, got ", length);
  set_plain(torch::randn({length, num_heads * head_size}), torch::randn({length, num_heads * head_size}));
}

std::pair<torch::Tensor, torch::Tensor> PrefixTuningImpl::prefix() {
  if (!reparameterized()) return {keys, values};
  const auto both = encoder_->layer_prefix(layer_);  // (l, 2C)
  const int64_t width = num_heads_ * head_size_;
  return {both.narrow(1, 0, width), both.narrow(1, width, width)};
}

void PrefixTuningImpl::set_plain(const torch::Tensor& new_keys, const torch::Tensor& new_values) {
  const int64_t width = num_heads_ * head_size_;
  TORCH_CHECK(new_keys.sizes() == torch::IntArrayRef({length_, width}) && new_values.sizes() == new_keys.sizes(),
              "PrefixTuning: plain prefixes must be (", length_, ", ", width, "), got ", new_keys.sizes(), " and ",
              new_values.sizes());
  if (reparameterized()) {
    if (owns_encoder_) unregister_module("encoder");
    encoder_ = nullptr;
  }
  keys = register_parameter("keys", new_keys.detach().clone());
  values = register_parameter("values", new_values.detach().clone());
}

KeyValues prepend_prefix(KeyValues state, const torch::Tensor& keys, const torch::Tensor& values, int64_t num_heads,
                         int64_t head_size) {
  const int64_t batch = state.keys.size(0), length = keys.size(0);
  // (l, C) → (B, H, l, d), the head split of the site's own keys and values; expand is a view.
  const auto heads = [&](const torch::Tensor& x) {
    return x.view({length, num_heads, head_size}).permute({1, 0, 2}).unsqueeze(0).expand({batch, -1, -1, -1});
  };
  state.keys = torch::cat({heads(keys), state.keys}, 2);        // (B, H, l + T, d)
  state.values = torch::cat({heads(values), state.values}, 2);  // (B, H, l + T, d)
  // Every prefix position is attended: zeros in front of the additive mask.
  if (state.mask.defined()) state.mask = torch::constant_pad_nd(state.mask, {length, 0}, 0.0);
  return state;
}

KeyValues PrefixTuningImpl::extend(KeyValues state) {
  auto [prefix_keys, prefix_values] = prefix();  // (l, C) each
  return prepend_prefix(std::move(state), prefix_keys, prefix_values, num_heads_, head_size_);
}

TunerParameterCount PrefixTuningImpl::parameter_count() const {
  const int64_t stored = 2 * length_ * num_heads_ * head_size_;
  return {stored, stored};
}

int64_t merge_prefixes(torch::nn::Module& model) {
  // All prefixes are computed before any site drops the shared encoder it may own.
  std::vector<std::pair<std::shared_ptr<PrefixTuningImpl>, std::pair<torch::Tensor, torch::Tensor>>> merged;
  {
    torch::NoGradGuard no_grad;
    for (const auto& [name, tuner] : find_tuners(model)) {
      auto prefix = std::dynamic_pointer_cast<PrefixTuningImpl>(tuner);
      if (prefix && prefix->reparameterized()) merged.emplace_back(prefix, prefix->prefix());
    }
  }
  for (auto& [prefix, tensors] : merged) prefix->set_plain(tensors.first, tensors.second);
  return static_cast<int64_t>(merged.size());
}

}  // namespace capaboost
