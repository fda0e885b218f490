#include "runtime/precision.h"

#include <catch2/catch.hpp>
#include <torch/torch.h>

#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "models/batched_matmul.h"
#include "models/deberta_v2.h"
#include "models/roberta.h"
#include "models/vit.h"
#include "peft/lora.h"
#include "runtime/autocast_compat.h"
#include "sites/site_registry.h"
#include "train/trainable_selection.h"

using namespace capaboost;
using namespace capaboost::runtime;
using Catch::Contains;

namespace {

// The kernel's own account of the CPU: an independent reading of what cpu_bf16_support() decodes.
std::string cpuinfo_flags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) == 0) return line + " ";
  }
  return "";
}

double relative_error(const torch::Tensor& got, const torch::Tensor& want) {
  return ((got.to(torch::kFloat) - want).norm() / want.norm()).item<double>();
}

}  // namespace

TEST_CASE("precision names round-trip and unknown ones are refused", "[runtime][precision]") {
  for (const auto& name : precision_names()) CHECK(to_string(parse_precision(name)) == name);
  CHECK_THROWS_WITH(parse_precision("fp16"), Contains("choose fp32 or bf16"));
}

TEST_CASE("bf16 support is read as the kernel reports it, and bf16 is refused without it", "[runtime][precision]") {
  const std::string flags = cpuinfo_flags();
  if (flags.empty()) {
    WARN("skipped: no flags line in /proc/cpuinfo to compare against");
    return;
  }
  const bool amx = flags.find(" amx_bf16 ") != std::string::npos;
  const bool avx512 = flags.find(" avx512_bf16 ") != std::string::npos;
  const std::string support = cpu_bf16_support();
  INFO("cpu_bf16_support() = '" << support << "'");
  CHECK(support == (amx ? "amx_bf16" : avx512 ? "avx512_bf16" : ""));
  CHECK_NOTHROW(require_precision(Precision::kFp32));
  if (support.empty()) {
    CHECK_THROWS_WITH(require_precision(Precision::kBf16), Contains("use precision: fp32"));
  } else {
    CHECK_NOTHROW(require_precision(Precision::kBf16));
  }
}

// The numerics below need no bf16 hardware (ATen computes bf16 on any CPU, slowly): they run everywhere.
TEST_CASE("a bf16 scope turns autocast on for its extent, nested scopes restore it", "[runtime][precision]") {
  const auto x = torch::randn({4, 8});
  const auto w = torch::randn({6, 8});
  CHECK_FALSE(autocast_enabled(c10::DeviceType::CPU));
  {
    const PrecisionScope fp32(Precision::kFp32);
    CHECK_FALSE(autocast_enabled(c10::DeviceType::CPU));
    CHECK(torch::nn::functional::linear(x, w).scalar_type() == torch::kFloat);
  }
  {
    const PrecisionScope outer(Precision::kBf16);
    CHECK(autocast_enabled(c10::DeviceType::CPU));
    CHECK(torch::nn::functional::linear(x, w).scalar_type() == torch::kBFloat16);
    {
      const PrecisionScope inner(Precision::kBf16);
      CHECK(autocast_enabled(c10::DeviceType::CPU));
    }
    CHECK(autocast_enabled(c10::DeviceType::CPU));  // the inner scope restored the outer one's state
  }
  CHECK_FALSE(autocast_enabled(c10::DeviceType::CPU));
  CHECK(torch::nn::functional::linear(x, w).scalar_type() == torch::kFloat);
}

TEST_CASE("batched_matmul under bf16 takes mixed operands and matches fp32 to bf16 rounding", "[runtime][precision]") {
  torch::manual_seed(3);
  const auto a = torch::randn({2, 3, 5, 16});                          // (B, H, T, d) fp32
  const auto b = torch::randn({2, 3, 16, 7}).to(torch::kBFloat16);     // as a projection's bf16 output
  const auto want = torch::matmul(a, b.to(torch::kFloat)) * 0.25;
  torch::Tensor got;
  {
    const PrecisionScope scope(Precision::kBf16);
    got = batched_matmul(a, b, 0.25);
  }
  CHECK(got.scalar_type() == torch::kBFloat16);
  // bf16 keeps 8 significant bits (relative rounding 2⁻⁹ per operand); a 16-term sum stays well under 1%.
  CHECK(relative_error(got, want) < 1e-2);
}

TEST_CASE("a LoRA step of RoBERTa with bf16 products: fp32 gradients close to the fp32 step's",
          "[runtime][precision]") {
  // Relative-key-query attention (mini's), LoRA r=4 on query and value, the head trained.
  const auto make_model = [] {
    torch::manual_seed(7);
    auto model = RobertaForSequenceClassification(roberta_options()
                                                      .vocab_size(120)
                                                      .hidden_size(64)
                                                      .num_hidden_layers(2)
                                                      .num_attention_heads(4)
                                                      .intermediate_size(128)
                                                      .max_position_embeddings(40)
                                                      .position_embedding_type(PositionEmbeddingType::kRelativeKeyQuery)
                                                      .hidden_dropout_prob(0)
                                                      .attention_probs_dropout_prob(0)
                                                      .num_labels(3));
    attach_tuners(*model, SiteSelector{{"query", "value"}}, [](const std::string& site, const TunableLinearImpl& layer) {
      auto lora = std::make_shared<LoraImpl>(LoraOptions(4).alpha(8), site, layer.options.in_features(),
                                             layer.options.out_features());
      torch::NoGradGuard no_grad;
      lora->B.normal_(0, 0.05);  // nonzero, so A's gradient is too
      return lora;
    });
    freeze_backbone(*model, {"classifier."});
    return model;
  };
  torch::manual_seed(11);
  const auto ids = torch::randint(3, 120, {4, 24}, torch::kLong);
  auto mask = torch::ones({4, 24}, torch::kLong);
  mask.narrow(1, 18, 6).select(0, 1).zero_();  // one padded row
  const auto labels = torch::tensor({0, 2, 1, 2}, torch::kLong);

  const auto step = [&](Precision precision) {
    auto model = make_model();
    model->train();
    torch::Tensor logits, loss;
    {
      const PrecisionScope scope(precision);
      logits = model->forward(ids, mask).logits.to(torch::kFloat);
      loss = model->loss(logits, labels);
    }
    CHECK(loss.scalar_type() == torch::kFloat);
    loss.backward();
    std::map<std::string, torch::Tensor> grads;
    for (const auto& item : model->named_parameters()) {
      if (!item.value().requires_grad()) continue;
      REQUIRE(item.value().grad().defined());
      CHECK(item.value().grad().scalar_type() == torch::kFloat);  // master weights and their gradients stay fp32
      grads[item.key()] = item.value().grad().clone();
    }
    return std::make_pair(logits.detach(), grads);
  };
  const auto [fp32_logits, fp32_grads] = step(Precision::kFp32);
  const auto [bf16_logits, bf16_grads] = step(Precision::kBf16);
  CHECK(relative_error(bf16_logits, fp32_logits) < 3e-2);
  REQUIRE(fp32_grads.size() == bf16_grads.size());
  REQUIRE(fp32_grads.size() == 2 * 2 * 2 + 4);  // A and B at 2 sites × 2 layers, the head's two layers
  for (const auto& [name, want] : fp32_grads) {
    INFO(name);
    const auto got = bf16_grads.at(name);
    const double cosine = (got * want).sum().item<double>() / (got.norm() * want.norm()).item<double>();
    CHECK(cosine > 0.99);
    CHECK(relative_error(got, want) < 0.1);
  }
}

TEST_CASE("DeBERTaV3's disentangled attention and ViT's patch embedding run in bf16 with fp32 gradients",
          "[runtime][precision]") {
  // Each backbone's own bf16 paths: DeBERTa's c2p/p2c products and gathers, ViT's patch convolution.
  const auto check = [](torch::nn::Module& model, const std::function<torch::Tensor()>& logits_of) {
    model.eval();  // no dropout: the two passes see the same network
    torch::Tensor fp32, bf16;
    {
      torch::NoGradGuard no_grad;
      fp32 = logits_of();
    }
    {
      const PrecisionScope scope(Precision::kBf16);
      bf16 = logits_of();
    }
    CHECK(bf16.scalar_type() == torch::kBFloat16);
    CHECK(relative_error(bf16, fp32) < 3e-2);
    bf16.to(torch::kFloat).square().sum().backward();
    int64_t with_grad = 0;
    for (const auto& parameter : model.parameters()) {
      if (!parameter.grad().defined()) continue;
      CHECK(parameter.grad().scalar_type() == torch::kFloat);
      CHECK(torch::isfinite(parameter.grad()).all().item<bool>());
      ++with_grad;
    }
    CHECK(with_grad > 10);
  };
  torch::manual_seed(21);
  DebertaV2ForSequenceClassification deberta(DebertaV2Options()
                                                 .vocab_size(50)
                                                 .hidden_size(32)
                                                 .num_hidden_layers(2)
                                                 .num_attention_heads(2)
                                                 .intermediate_size(48)
                                                 .max_position_embeddings(64)
                                                 .position_buckets(8)
                                                 .num_labels(3));
  const auto ids = torch::randint(3, 50, {2, 20}, torch::kLong);  // distances beyond the 4 linear buckets
  {
    INFO("DeBERTaV3");
    check(*deberta, [&] { return deberta->forward(ids).logits; });
  }
  VitForImageClassification vit(VitOptions().hidden_size(32).num_hidden_layers(2).num_attention_heads(2)
                                    .intermediate_size(48).image_size(16).patch_size(4).num_labels(3));
  const auto pixels = torch::randn({2, 3, 16, 16});  // (B, C, H, W)
  {
    INFO("ViT");
    check(*vit, [&] { return vit->forward(pixels).logits; });
  }
}
