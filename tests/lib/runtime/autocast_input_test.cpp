#include "runtime/autocast_input.h"

#include <ATen/record_function.h>
#include <catch2/catch.hpp>
#include <torch/torch.h>

#include <atomic>
#include <cstring>
#include <functional>

#include "models/bert_layers.h"
#include "peft/lora.h"
#include "runtime/precision.h"
#include "sites/site_registry.h"

using namespace capaboost;
using namespace capaboost::runtime;

namespace {

// How many times the ops run inside `body` copy `source`'s storage into another dtype (aten::_to_copy,
// the op behind every autocast cast), counted by a thread-local profiler callback.
int64_t casts_of(const torch::Tensor& source, const std::function<void()>& body) {
  static std::atomic<int64_t> count{0};
  static const void* watched = nullptr;
  count = 0;
  watched = source.data_ptr();
  const auto handle = at::addThreadLocalCallback(
      at::RecordFunctionCallback([](const at::RecordFunction& fn) -> std::unique_ptr<at::ObserverContext> {
        if (std::strcmp(fn.name(), "aten::_to_copy") != 0) return nullptr;
        const auto inputs = fn.inputs();
        if (!inputs.empty() && inputs[0].isTensor() && inputs[0].toTensor().data_ptr() == watched) ++count;
        return nullptr;
      })
          .needsInputs(true)
          .scopes({at::RecordScope::FUNCTION}));
  body();
  at::removeCallback(handle);
  return count;
}

}  // namespace

TEST_CASE("autocast_input casts an fp32 input to autocast's dtype inside a bf16 scope and nowhere else",
          "[runtime][precision]") {
  const auto x = torch::randn({2, 3, 4});
  CHECK(autocast_input(x).unsafeGetTensorImpl() == x.unsafeGetTensorImpl());  // fp32 runs: untouched
  const PrecisionScope scope(Precision::kBf16);
  const auto cast = autocast_input(x);
  CHECK(cast.scalar_type() == torch::kBFloat16);
  CHECK(torch::equal(cast, x.to(torch::kBFloat16)));
  const auto already = x.to(torch::kBFloat16);
  CHECK(autocast_input(already).unsafeGetTensorImpl() == already.unsafeGetTensorImpl());
  const auto ids = torch::ones({2, 3}, torch::kLong);
  CHECK(autocast_input(ids).scalar_type() == torch::kLong);
}

TEST_CASE("a bf16 self-attention with LoRA on query and value casts its input once, not once per product",
          "[runtime][precision]") {
  // query, key, value and the two LoRA factors A read the hidden states: five products, one cast.
  torch::manual_seed(3);
  BertSelfAttention attention(roberta_options().hidden_size(32).num_attention_heads(4));
  attach_tuners(*attention, SiteSelector{{"query", "value"}}, [](const std::string& site, const TunableLinearImpl& layer) {
    return std::make_shared<LoraImpl>(LoraOptions(4), site, layer.options.in_features(), layer.options.out_features());
  });
  attention->eval();
  const auto hidden = torch::randn({2, 6, 32});  // (B, T, C)
  const PrecisionScope scope(Precision::kBf16);
  torch::Tensor context;
  CHECK(casts_of(hidden, [&] { context = attention->forward(hidden, torch::Tensor()).first; }) == 1);
  CHECK(context.scalar_type() == torch::kBFloat16);
}
