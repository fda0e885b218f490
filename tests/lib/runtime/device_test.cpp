// Runs follow their model's device: names resolve, a module's device is read from its parameters, and
// (on a machine with a GPU) every backbone with every method trains where it was moved — a tensor a
// forward or backward creates on the CPU by mistake makes the op that meets it fail.

#include "runtime/device.h"

#include "backbones/backbone_registry.h"
#include "lib/data/glue_test_support.h"
#include "models/bert_for_sequence_classification.h"
#include "peft/method_registry.h"
#include "runtime/precision.h"
#include "train/optimizer_setup.h"
#include "train/trainable_selection.h"
#include "util/setup_error.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <functional>

using namespace capaboost;

TEST_CASE("device names resolve, and cuda without a GPU names the fix", "[runtime][device]") {
  CHECK(runtime::resolve_device("cpu") == torch::Device(torch::kCPU));
  CHECK(runtime::device_names() == std::vector<std::string>{"cpu", "cuda", "auto"});
  CHECK_THROWS_AS(runtime::resolve_device("gpu"), std::invalid_argument);
  if (torch::cuda::is_available()) {
    CHECK(runtime::resolve_device("auto").is_cuda());
  } else {
    CHECK(runtime::resolve_device("auto") == torch::Device(torch::kCPU));
    CHECK_THROWS_AS(runtime::resolve_device("cuda"), SetupError);
    CHECK_THROWS_WITH(runtime::resolve_device("cuda"), Catch::Contains("Torch_DIR"));
  }
  CHECK(runtime::device_label(torch::Device(torch::kCUDA, 1)) == "cuda:1");
}

TEST_CASE("module_device is where the parameters are, and refuses a split module", "[runtime][device]") {
  torch::nn::Linear linear(3, 2);
  CHECK(runtime::module_device(*linear) == torch::Device(torch::kCPU));
  torch::nn::Module elsewhere;
  elsewhere.register_parameter("weight", torch::empty({2, 3}, torch::kMeta));
  CHECK(runtime::module_device(elsewhere) == torch::Device(torch::kMeta));
  elsewhere.register_parameter("bias", torch::zeros({2}));
  CHECK_THROWS_WITH(runtime::module_device(elsewhere), Catch::Contains("Module::to"));
  CHECK(runtime::module_device(torch::nn::Module()) == torch::Device(torch::kCPU));
}

// Needs a GPU: Module::to cannot move parameters to the meta device (LibTorch refuses set_data across
// CPU and meta), so without CUDA there is no second device to move a model to. Here it skips.
TEST_CASE("every backbone with every method trains on the device it was moved to", "[runtime][device]") {
  if (!torch::cuda::is_available()) {
    WARN("skipped: no CUDA device (this LibTorch is CPU-only or sees no GPU); the CUDA path is untested here");
    return;
  }
  const auto root = test::mirror_root();
  if (!std::filesystem::exists(std::filesystem::path(root.path) / "tokenizers" / "roberta-base" / "vocab.json")) {
    WARN("skipped: the text backbones need roberta-base's tokenizer under " << root.path << " (CAPABOOST_DATA_DIR)");
    return;
  }
  const torch::Device device(torch::kCUDA, 0);
  const auto on_device = [&](torch::IntArrayRef shape, torch::ScalarType dtype) {
    return torch::zeros(shape, torch::dtype(dtype).device(device));
  };
  int combinations = 0;
  for (const std::string model : {"tiny-random", "deberta-tiny-random", "vit-tiny-random"}) {
    const bool image = model.rfind("vit", 0) == 0;
    Batch batch;
    batch.examples = 2;
    if (image) {
      batch.inputs["pixel_values"] = on_device({2, 3, 32, 32}, torch::kFloat);
    } else {
      batch.inputs["input_ids"] = on_device({2, 7}, torch::kLong);
      batch.inputs["attention_mask"] = on_device({2, 7}, torch::kLong) + 1;
    }
    batch.labels = on_device({2}, torch::kLong);
    for (const auto& method_name : method_names()) {
      INFO(model << " with " << method_name);
      const MethodSpec& method = find_method(method_name);
      const bool has_branches = std::any_of(method.parameters.begin(), method.parameters.end(),
                                            [](const ParameterDef& p) { return p.name == "branches"; });
      // CapaBoost's form where the method has one: its masks are drawn on the CPU and must follow.
      const nlohmann::json given = has_branches ? nlohmann::json{{"branches", 2}} : nlohmann::json::object();
      Backbone backbone = load_backbone(model, TaskHead{TaskHead::Kind::kSequenceClassification, 2},
                                        BackboneContext{root.path});
      try {
        method.attach(*backbone.model, resolve_or_throw(method.parameters, given, "method " + method_name));
      } catch (const std::exception& e) {
        WARN(method_name << " does not attach to " << model << " (not a device question): " << e.what());
        continue;
      }
      select_trainable_parameters(*backbone.model, method.trains_backbone_parameter, backbone.model->head_prefixes());
      backbone.model->to(device);
      backbone.model->train();
      CHECK(runtime::module_device(*backbone.model) == device);
      const auto outputs = backbone.model->forward_batch(batch);  // (2, 2)
      CHECK(outputs.device() == device);
      auto loss = backbone.model->batch_loss(outputs, batch);
      loss.backward();
      for (const auto& parameter : backbone.model->parameters()) {
        if (parameter.requires_grad() && parameter.grad().defined()) CHECK(parameter.grad().device() == device);
      }
      ++combinations;
    }
  }
  CHECK(combinations >= 20);  // three backbones, most methods on each
}

namespace {

// ‖got − want‖ / max(‖want‖, floor) in float64 on the CPU. The floor is for tensors that are zero in
// exact arithmetic: LoRA's A gradient while B is 0 (floor 1e-12), and the gradient of attention's key
// bias, which adds q·b to every score of a query's row and so cancels in the softmax — both devices
// return rounding noise there (~1e-9 on the tiny models), so it is measured against the model's
// largest gradient instead of against itself.
double relative_error_on_cpu(const torch::Tensor& got, const torch::Tensor& want, double floor = 1e-12) {
  const auto g = got.detach().to(torch::kCPU, torch::kDouble);
  const auto w = want.detach().to(torch::kCPU, torch::kDouble);
  return (g - w).norm().item<double>() / std::max(w.norm().item<double>(), floor);
}

// The backbones of the comparisons: the three encoder families at test size, and BERT's own embeddings
// (token types, positions from 0) through the same encoder.
struct ParityBackbone {
  std::string name;
  bool image = false;
  bool token_types = false;
  /// LoRA's sites, in the model's own names (DeBERTa calls them query_proj and value_proj).
  std::vector<std::string> lora_targets = {"query", "value"};
};

const std::vector<ParityBackbone>& parity_backbones() {
  static const std::vector<ParityBackbone> backbones{
      {"tiny-random"},
      {"deberta-tiny-random", false, false, {"query_proj", "value_proj"}},
      {"vit-tiny-random", true},
      {"bert-tiny", false, true}};
  return backbones;
}

TaskModelPtr build_model(const ParityBackbone& backbone, const std::string& root) {
  const TaskHead head{TaskHead::Kind::kSequenceClassification, 2};
  if (backbone.name != "bert-tiny") return load_backbone(backbone.name, head, BackboneContext{root}).model;
  return BertForSequenceClassification(
             bert_options().vocab_size(120).hidden_size(32).num_hidden_layers(2).num_attention_heads(4)
                 .intermediate_size(37).num_labels(2)).ptr();
}

// Inputs on the CPU: two rows, the second padded (text), token types for BERT.
Batch parity_batch(const ParityBackbone& backbone) {
  torch::manual_seed(3);
  Batch batch;
  batch.examples = 2;
  if (backbone.image) {
    batch.inputs["pixel_values"] = torch::randn({2, 3, 32, 32});  // (B, C, H, W)
  } else {
    batch.inputs["input_ids"] = torch::randint(5, 100, {2, 9}, torch::kLong);  // (B, T)
    auto mask = torch::ones({2, 9}, torch::kLong);
    mask[1].slice(0, 6).fill_(0);
    batch.inputs["attention_mask"] = mask;
    if (backbone.token_types) batch.inputs["token_type_ids"] = (torch::arange(9) >= 4).to(torch::kLong).repeat({2, 1});
  }
  batch.labels = torch::tensor({0, 1}, torch::kLong);
  return batch;
}

Batch moved(const Batch& batch, const torch::Device& device) {
  Batch out = batch;
  for (auto& [name, tensor] : out.inputs) tensor = tensor.to(device);
  out.labels = out.labels.to(device);
  return out;
}

// For every parity backbone and every method that attaches to it (CapaBoost's form where the method has
// one): `check(name, cpu_model, gpu_model, batch)` with two models built from one seed on the CPU,
// weights, method and masks alike, the second moved to the GPU. Returns the number of combinations.
int for_each_model_pair(const std::function<void(const std::string&, TaskModelImpl&, TaskModelImpl&, const Batch&)>& check) {
  const auto root = test::mirror_root();
  const torch::Device device(torch::kCUDA, 0);
  int combinations = 0;
  for (const auto& backbone : parity_backbones()) {
    const Batch batch = parity_batch(backbone);
    for (const auto& method_name : method_names()) {
      const MethodSpec& method = find_method(method_name);
      const bool has_branches = std::any_of(method.parameters.begin(), method.parameters.end(),
                                            [](const ParameterDef& p) { return p.name == "branches"; });
      const nlohmann::json given = has_branches ? nlohmann::json{{"branches", 2}} : nlohmann::json::object();
      std::array<TaskModelPtr, 2> models;
      try {
        for (auto& model : models) {
          torch::manual_seed(11);
          model = build_model(backbone, root.path);
          method.attach(*model, resolve_or_throw(method.parameters, given, "method " + method_name));
          select_trainable_parameters(*model, method.trains_backbone_parameter, model->head_prefixes());
          model->eval();  // dropout off: the RNG streams of the CPU and the GPU differ
        }
      } catch (const std::exception& e) {
        WARN(method_name << " does not attach to " << backbone.name << " (not a device question): " << e.what());
        continue;
      }
      models[1]->to(device);
      check(backbone.name + " with " + method_name, *models[0], *models[1], batch);
      ++combinations;
    }
  }
  return combinations;
}

// The GPU's products in fp32 proper: TF32 (cuDNN's default for convolutions, ViT's patch embedding)
// keeps 10 mantissa bits and would stand out from the CPU's results by ~1e-3.
void disable_tf32() {
  at::globalContext().setAllowTF32CuBLAS(false);
  at::globalContext().setAllowTF32CuDNN(false);
}

}  // namespace

TEST_CASE("CPU and CUDA agree on every backbone and method: forward outputs and gradients", "[runtime][device][cuda]") {
  if (!torch::cuda::is_available()) {
    WARN("skipped: no CUDA device (this LibTorch is CPU-only or sees no GPU)");
    return;
  }
  disable_tf32();
  double worst_output = 0, worst_gradient = 0;
  const int combinations = for_each_model_pair([&](const std::string& name, TaskModelImpl& cpu, TaskModelImpl& gpu,
                                                   const Batch& batch) {
    INFO(name);
    const auto cpu_out = cpu.forward_batch(batch);                                       // (2, 2)
    const auto gpu_out = gpu.forward_batch(moved(batch, torch::Device(torch::kCUDA, 0)));  // (2, 2)
    const double output_error = relative_error_on_cpu(gpu_out, cpu_out);
    CHECK(output_error < 1e-4);
    worst_output = std::max(worst_output, output_error);
    cpu.batch_loss(cpu_out, batch).backward();
    gpu.batch_loss(gpu_out, moved(batch, torch::Device(torch::kCUDA, 0))).backward();
    const auto gpu_parameters = gpu.named_parameters();
    double largest = 0;
    for (const auto& parameter : cpu.parameters()) {
      if (parameter.grad().defined()) largest = std::max(largest, parameter.grad().norm().item<double>());
    }
    int compared = 0;
    for (const auto& item : cpu.named_parameters()) {
      if (!item.value().requires_grad() || !item.value().grad().defined()) continue;
      INFO(item.key());
      const auto& gpu_grad = gpu_parameters[item.key()].grad();
      REQUIRE(gpu_grad.defined());
      const double error = relative_error_on_cpu(gpu_grad, item.value().grad(), std::max(1e-12, 1e-4 * largest));
      CHECK(error < 1e-3);
      worst_gradient = std::max(worst_gradient, error);
      ++compared;
    }
    CHECK(compared > 0);
  });
  CHECK(combinations >= 28);  // four backbones, most methods on each
  WARN("CPU vs CUDA over " << combinations << " backbone-method pairs: worst relative error " << worst_output
                           << " (outputs), " << worst_gradient << " (gradients)");
}

TEST_CASE("bf16 on CUDA runs the products in bf16 through CUDA's autocast, near fp32", "[runtime][device][cuda]") {
  if (!torch::cuda::is_available()) {
    WARN("skipped: no CUDA device (this LibTorch is CPU-only or sees no GPU)");
    return;
  }
  CHECK_NOTHROW(runtime::require_precision(runtime::Precision::kBf16, c10::DeviceType::CUDA));
  disable_tf32();
  const torch::Device device(torch::kCUDA, 0);
  for (const auto& backbone : parity_backbones()) {
    INFO(backbone.name);
    torch::manual_seed(11);
    TaskModelPtr model = build_model(backbone, test::mirror_root().path);
    const MethodSpec& lora = find_method("lora");
    lora.attach(*model, resolve_or_throw(lora.parameters, {{"branches", 2}, {"targets", backbone.lora_targets}}, "lora"));
    select_trainable_parameters(*model, lora.trains_backbone_parameter, model->head_prefixes());
    model->to(device);
    model->eval();
    const Batch batch = moved(parity_batch(backbone), device);
    const auto fp32 = model->forward_batch(batch);  // (2, 2)
    torch::Tensor bf16;
    {
      const runtime::PrecisionScope scope(runtime::Precision::kBf16, c10::DeviceType::CUDA);
      const auto product = torch::nn::functional::linear(torch::randn({4, 8}, device), torch::randn({3, 8}, device));
      CHECK(product.scalar_type() == torch::kBFloat16);
      bf16 = model->forward_batch(batch).to(torch::kFloat);
    }
    // Outside the scope CUDA's autocast is off again.
    CHECK(torch::nn::functional::linear(torch::randn({4, 8}, device), torch::randn({3, 8}, device)).scalar_type() ==
          torch::kFloat);
    const double error = relative_error_on_cpu(bf16, fp32);
    CHECK(error > 0);      // the products did run in bf16
    CHECK(error < 5e-2);   // bf16 operands with fp32 accumulation: ~1e-3 to 1e-2 (8 mantissa bits)
    model->batch_loss(bf16, batch).backward();  // backward outside the scope, as the trainer runs it
    for (const auto& parameter : model->parameters()) {
      if (parameter.requires_grad() && parameter.grad().defined()) {
        CHECK(parameter.grad().scalar_type() == torch::kFloat);  // the master weights' dtype
        CHECK(torch::isfinite(parameter.grad()).all().item<bool>());
      }
    }
  }
}

TEST_CASE("AdamW's multi-tensor step on a GPU updates as its per-tensor step on the CPU", "[runtime][device][cuda]") {
  if (!torch::cuda::is_available()) {
    WARN("skipped: no CUDA device (this LibTorch is CPU-only or sees no GPU)");
    return;
  }
  // Two groups (weights decay, the bias and LayerNorm do not), one with a learning rate of its own.
  const auto build = [] {
    torch::manual_seed(5);
    torch::nn::Sequential model(torch::nn::Linear(16, 8), torch::nn::LayerNorm(torch::nn::LayerNormOptions({8})),
                                torch::nn::Linear(8, 3));
    return model;
  };
  auto cpu = build();
  auto gpu = build();
  gpu->to(torch::Device(torch::kCUDA, 0));
  const auto settings = AdamWSettings().lr(1e-2).weight_decay(0.1).lr_of([](const std::string& name) {
    return name.rfind("2.", 0) == 0 ? std::optional<double>(3e-2) : std::nullopt;
  });
  auto cpu_optimizer = make_adamw(*cpu, settings);
  auto gpu_optimizer = make_adamw(*gpu, settings);
  const auto gpu_parameters = gpu->named_parameters();
  for (int step = 0; step < 4; ++step) {
    for (const auto& item : cpu->named_parameters()) {
      const auto grad = torch::randn_like(item.value());
      item.value().mutable_grad() = grad;
      gpu_parameters[item.key()].mutable_grad() = grad.to(torch::Device(torch::kCUDA, 0));
    }
    cpu_optimizer->step();
    gpu_optimizer->step();
  }
  for (const auto& item : cpu->named_parameters()) {
    INFO(item.key());
    CHECK(relative_error_on_cpu(gpu_parameters[item.key()], item.value()) < 1e-6);
  }
}
