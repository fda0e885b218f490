#include "checkpoint/state_dict.h"

#include <torch/torch.h>

#include <catch2/catch.hpp>

#include "peft/lora.h"
#include "sites/site_registry.h"
#include "support/temp_dir.h"

using namespace capaboost;
using capaboost::testing::TempDir;
using Catch::Contains;

namespace {

struct EncoderImpl : torch::nn::Module {
  EncoderImpl() {
    body = register_module("body", TunableLinear(4, 3));
    steps = register_buffer("steps", torch::arange(3, torch::kLong));
  }
  TunableLinear body{nullptr};
  torch::Tensor steps;
};
TORCH_MODULE(Encoder);

// An encoder under a base prefix plus a head, like RobertaForSequenceClassification.
struct HeadedImpl : torch::nn::Module {
  HeadedImpl() {
    base = register_module("base", Encoder());
    head = register_module("head", TunableLinear(3, 2));
  }
  Encoder base{nullptr};
  TunableLinear head{nullptr};
};
TORCH_MODULE(Headed);

bool same_parameters(torch::nn::Module& a, torch::nn::Module& b) {
  const auto left = state_dict(a), right = state_dict(b);
  if (left.size() != right.size()) return false;
  for (const auto& [name, tensor] : left) {
    if (!right.count(name) || !torch::equal(tensor, right.at(name))) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("state dict save and load round trip by name", "[state_dict]") {
  TempDir dir;
  torch::manual_seed(0);
  Headed source, target;
  {
    torch::NoGradGuard no_grad;
    source->base->steps.fill_(41);
  }
  REQUIRE_FALSE(same_parameters(*source, *target));
  save_state_dict(*source, dir.file("m.safetensors"));
  const auto report = load_state_dict(*target, SafetensorsFile(dir.file("m.safetensors")));
  CHECK(same_parameters(*source, *target));
  CHECK(report.loaded.size() == 5);  // base.body.{weight,bias}, base.steps, head.{weight,bias}
  CHECK(report.missing.empty());
  CHECK(report.unexpected.empty());
  CHECK(state_dict(*target).count("base.body.weight") == 1);
}

TEST_CASE("state dict loading reports missing and unexpected names, and a failed load changes nothing",
          "[state_dict]") {
  TempDir dir;
  const auto path = dir.file("m.safetensors");
  Headed model;
  const auto before = state_dict(*model);
  std::map<std::string, torch::Tensor> snapshot;
  for (const auto& [name, tensor] : before) snapshot[name] = tensor.clone();

  save_safetensors(path, {{"base.body.weight", torch::ones({3, 4})},
                          {"base.body.bias", torch::ones({3})},
                          {"base.steps", torch::zeros({3}, torch::kLong)},
                          {"lm_head.weight", torch::ones({2})}});
  CHECK_THROWS_WITH(load_state_dict(*model, SafetensorsFile(path)),
                    Contains(path) && Contains("missing: [head.bias, head.weight]") &&
                        Contains("unexpected: [lm_head.weight]"));
  for (const auto& [name, tensor] : state_dict(*model)) CHECK(torch::equal(tensor, snapshot.at(name)));

  const auto report = load_state_dict(
      *model, SafetensorsFile(path),
      StateDictLoadOptions().allow_missing({R"(head\..*)"}).allow_unexpected({R"(lm_head\..*)"}));
  CHECK(report.missing == std::vector<std::string>{"head.bias", "head.weight"});
  CHECK(report.unexpected == std::vector<std::string>{"lm_head.weight"});
  CHECK(model->base->body->weight.eq(1).all().item<bool>());
  CHECK(torch::equal(model->head->weight, snapshot.at("head.weight")));

  const auto ignoring =
      load_state_dict(*model, SafetensorsFile(path),
                      StateDictLoadOptions().allow_missing({R"(head\..*)"}).ignore({"lm_head.weight"}));
  CHECK(ignoring.unexpected.empty());
  CHECK(ignoring.ignored == std::vector<std::string>{"lm_head.weight"});
}

TEST_CASE("state dict loading rejects a shape or kind mismatch, naming file, tensor and shapes",
          "[state_dict]") {
  TempDir dir;
  const auto path = dir.file("m.safetensors");
  Encoder model;
  save_safetensors(path, {{"body.weight", torch::ones({3, 5})},
                          {"body.bias", torch::ones({3})},
                          {"steps", torch::zeros({3}, torch::kLong)}});
  CHECK_THROWS_WITH(load_state_dict(*model, SafetensorsFile(path)),
                    Contains(path) && Contains("'body.weight' has shape [3, 5]") && Contains("[3, 4]"));
  save_safetensors(path, {{"body.weight", torch::ones({3, 4}, torch::kLong)},
                          {"body.bias", torch::ones({3})},
                          {"steps", torch::zeros({3}, torch::kLong)}});
  CHECK_THROWS_WITH(load_state_dict(*model, SafetensorsFile(path)),
                    Contains(path) && Contains("'body.weight' is Long"));
  // Float widths convert (a half-precision checkpoint into a float32 model).
  save_safetensors(path, {{"body.weight", torch::full({3, 4}, 0.5, torch::kHalf)},
                          {"body.bias", torch::ones({3})},
                          {"steps", torch::zeros({3}, torch::kLong)}});
  load_state_dict(*model, SafetensorsFile(path));
  CHECK(model->body->weight.scalar_type() == torch::kFloat);
  CHECK(model->body->weight.eq(0.5).all().item<bool>());
}

TEST_CASE("state dict leaves out the names it is told to, such as a tuner's", "[state_dict]") {
  TempDir dir;
  Encoder model;
  attach_tuners(*model, SiteSelector{{"body"}}, [](const std::string& site, const TunableLinearImpl& layer) {
    return std::make_shared<LoraImpl>(LoraOptions(2), site, layer.options.in_features(),
                                      layer.options.out_features());
  });
  CHECK(tuner_tensor_names(*model) == std::vector<std::string>{"body.lora.A", "body.lora.B"});
  CHECK(state_dict(*model, tuner_tensor_names(*model)).count("body.lora.A") == 0);
  CHECK(state_dict(*model).count("body.lora.A") == 1);

  // A backbone checkpoint loads into a model that carries tuners: they are not "missing".
  Encoder plain;
  save_state_dict(*plain, dir.file("backbone.safetensors"));
  const auto report = load_state_dict(*model, SafetensorsFile(dir.file("backbone.safetensors")),
                                      StateDictLoadOptions().exclude(tuner_tensor_names(*model)));
  CHECK(report.missing.empty());
  CHECK(torch::equal(model->body->weight, plain->body->weight));

  save_state_dict(*model, dir.file("with_tuners.safetensors"));
  CHECK(SafetensorsFile(dir.file("with_tuners.safetensors")).contains("body.lora.B"));
  Encoder other;
  attach_tuners(*other, SiteSelector{{"body"}}, [](const std::string& site, const TunableLinearImpl& layer) {
    return std::make_shared<LoraImpl>(LoraOptions(2), site, layer.options.in_features(),
                                      layer.options.out_features());
  });
  load_state_dict(*other, SafetensorsFile(dir.file("with_tuners.safetensors")));
  CHECK(torch::equal(other->body->tuner()->named_parameters()["A"],
                     model->body->tuner()->named_parameters()["A"]));
}

TEST_CASE("state dict maps the base-model prefix both ways, as transformers' from_pretrained",
          "[state_dict]") {
  TempDir dir;
  Encoder bare;
  Headed headed;
  const auto options = StateDictLoadOptions().base_prefix("base.");
  // Bare checkpoint into the headed model: "body.weight" → "base.body.weight"; the head stays fresh.
  save_state_dict(*bare, dir.file("bare.safetensors"));
  const auto into_headed = load_state_dict(*headed, SafetensorsFile(dir.file("bare.safetensors")),
                                           StateDictLoadOptions(options).allow_missing({R"(head\..*)"}));
  CHECK(torch::equal(headed->base->body->weight, bare->body->weight));
  CHECK(into_headed.missing == std::vector<std::string>{"head.bias", "head.weight"});

  // Headed checkpoint into the bare encoder: "base." is stripped, the head is unexpected.
  Headed trained;
  save_state_dict(*trained, dir.file("headed.safetensors"));
  Encoder encoder;
  const auto into_bare = load_state_dict(*encoder, SafetensorsFile(dir.file("headed.safetensors")),
                                         StateDictLoadOptions(options).allow_unexpected({R"(head\..*)"}));
  CHECK(torch::equal(encoder->body->weight, trained->base->body->weight));
  CHECK(into_bare.unexpected == std::vector<std::string>{"head.bias", "head.weight"});
}
