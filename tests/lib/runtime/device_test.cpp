// Runs follow their model's device: names resolve, a module's device is read from its parameters, and
// (on a machine with a GPU) every backbone with every method trains where it was moved — a tensor a
// forward or backward creates on the CPU by mistake makes the op that meets it fail.

#include "runtime/device.h"

#include "backbones/backbone_registry.h"
#include "lib/data/glue_test_support.h"
#include "peft/method_registry.h"
#include "train/trainable_selection.h"
#include "util/setup_error.h"

#include <catch2/catch.hpp>

#include <algorithm>

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
