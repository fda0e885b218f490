#include "models/vit.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <set>

#include "checkpoint/safetensors.h"
#include "peft/method_registry.h"
#include "sites/site_registry.h"
#include "support/reference_python.h"
#include "support/temp_dir.h"

using namespace capaboost;

namespace {

VitOptions tiny_vit() {
  return VitOptions().hidden_size(16).num_hidden_layers(2).num_attention_heads(2).intermediate_size(24).image_size(16)
      .patch_size(4).num_labels(3);
}

}  // namespace

TEST_CASE("ViT's parameter names are transformers' ViTForImageClassification state dict", "[models][vit]") {
  VitForImageClassification model(tiny_vit());
  std::set<std::string> names;
  for (const auto& item : model->named_parameters()) names.insert(item.key());
  for (const char* expected :
       {"vit.embeddings.cls_token", "vit.embeddings.position_embeddings",
        "vit.embeddings.patch_embeddings.projection.weight", "vit.embeddings.patch_embeddings.projection.bias",
        "vit.encoder.layer.0.attention.attention.query.weight", "vit.encoder.layer.0.attention.attention.value.bias",
        "vit.encoder.layer.0.attention.output.dense.weight", "vit.encoder.layer.1.intermediate.dense.weight",
        "vit.encoder.layer.1.output.dense.bias", "vit.encoder.layer.1.layernorm_before.weight",
        "vit.encoder.layer.1.layernorm_after.bias", "vit.layernorm.weight", "classifier.weight", "classifier.bias"}) {
    CHECK(names.count(expected) == 1);
  }
  // 2 embeddings tensors + projection (2) + 16 per layer × 2 + final LayerNorm (2) + classifier (2).
  CHECK(names.size() == 2 + 2 + 16 * 2 + 2 + 2);
  CHECK(model->vit->embeddings->position_embeddings.sizes() == torch::IntArrayRef({1, 17, 16}));  // (16/4)² + CLS
  VitForImageClassification no_bias(tiny_vit().qkv_bias(false));
  CHECK_FALSE(no_bias->vit->encoder->layer[0]->as<VitLayer>()->attention->attention->query->bias.defined());
}

TEST_CASE("ViT classifies from the CLS token and refuses images of another size unless it interpolates",
          "[models][vit]") {
  torch::manual_seed(3);
  VitForImageClassification model(tiny_vit());
  model->eval();
  torch::NoGradGuard no_grad;
  const auto pixels = torch::randn({2, 3, 16, 16});  // (B, C, H, W)
  const auto out = model->forward(pixels, VitForwardOptions().output_hidden_states(true).output_attentions(true));
  CHECK(out.logits.sizes() == torch::IntArrayRef({2, 3}));
  REQUIRE(out.hidden_states.size() == 3);
  CHECK(out.attentions.at(1).sizes() == torch::IntArrayRef({2, 2, 17, 17}));
  // The logits are the classifier on the final LayerNorm's CLS position.
  const auto last = model->vit->layernorm->forward(out.hidden_states.back());
  CHECK(torch::allclose(out.logits, model->classifier->forward(last.select(1, 0)), 1e-6, 1e-6));

  const auto larger = torch::randn({2, 3, 24, 20});  // 6 × 5 patches
  CHECK_THROWS_WITH(model->forward(larger), Catch::Contains("(24*20) doesn't match model (16*16)"));
  const auto interpolated = model->forward(larger, VitForwardOptions().interpolate_pos_encoding(true));
  CHECK(interpolated.logits.sizes() == torch::IntArrayRef({2, 3}));
  // As a task model it interpolates by itself.
  Batch batch;
  batch.inputs["pixel_values"] = larger;
  CHECK(torch::equal(model->forward_batch(batch), interpolated.logits));
  CHECK_THROWS_WITH(model->forward(torch::randn({2, 1, 16, 16})), Catch::Contains("1 channels"));
}

TEST_CASE("interpolated ViT positions equal transformers' bicubic interpolation in PyTorch", "[models][vit][python]") {
  torch::manual_seed(5);
  const auto table = torch::randn({1, 1 + 16, 8});  // a 4 × 4 grid of patch positions plus the CLS row
  CHECK(interpolate_vit_positions(table, 4, 4).data_ptr() == table.data_ptr());  // same grid: the table itself
  const auto wider = interpolate_vit_positions(table, 6, 5);
  REQUIRE(wider.sizes() == torch::IntArrayRef({1, 31, 8}));
  CHECK(torch::equal(wider.narrow(1, 0, 1), table.narrow(1, 0, 1)));  // the CLS row is kept

  const auto python = capaboost::testing::reference_python();
  if (!python) {
    WARN("skipped the PyTorch comparison: no system python3 with torch (Debian's python3-torch)");
    return;
  }
  capaboost::testing::TempDir dir;
  save_safetensors(dir.file("tables.safetensors"), {{"table", table}, {"ours", wider}});
  // transformers 4.30.2's ViTEmbeddings.interpolate_pos_encoding, on the same table, in Python.
  const std::string program = std::string(
      "import json, math, struct, sys, torch\n"
      "blob = open(sys.argv[1], 'rb').read()\n"
      "n = struct.unpack('<Q', blob[:8])[0]\n"
      "header = json.loads(blob[8:8 + n])\n"
      "def tensor(name):\n"
      "    b, e = header[name]['data_offsets']\n"
      "    return torch.frombuffer(bytearray(blob[8 + n + b:8 + n + e]), dtype=torch.float32).reshape(header[name]['shape'])\n"
      "table, ours = tensor('table'), tensor('ours')\n"
      "N = table.shape[1] - 1\n"
      "dim = table.shape[-1]\n"
      "h0, w0 = 6 + 0.1, 5 + 0.1\n"
      "grid = table[:, 1:].reshape(1, int(math.sqrt(N)), int(math.sqrt(N)), dim).permute(0, 3, 1, 2)\n"
      "grid = torch.nn.functional.interpolate(grid, scale_factor=(h0 / math.sqrt(N), w0 / math.sqrt(N)),"
      " mode='bicubic', align_corners=False)\n"
      "want = torch.cat((table[:, 0].unsqueeze(0), grid.permute(0, 2, 3, 1).view(1, -1, dim)), dim=1)\n"
      "err = (want - ours).abs().max().item()\n"
      "print('max difference', err)\n"
      "sys.exit(0 if err < 1e-6 else 1)\n");
  std::ofstream(dir.file("check.py")) << program;
  const auto result = capaboost::testing::run_command("'" + *python + "' '" + dir.file("check.py") + "' '" +
                                                      dir.file("tables.safetensors") + "'");
  INFO(result.output);
  CHECK(result.exit_code == 0);
}

TEST_CASE("PEFT methods attach to ViT's sites by the same names as on RoBERTa", "[models][vit][peft]") {
  VitForImageClassification model(tiny_vit());
  const MethodSpec& lora = find_method("lora");
  const auto sites = lora.attach(*model, resolve_or_throw(lora.parameters, {{"rank", 2}}, "method lora"));
  CHECK(sites == std::vector<std::string>{"vit.encoder.layer.0.attention.attention.query",
                                          "vit.encoder.layer.0.attention.attention.value",
                                          "vit.encoder.layer.1.attention.attention.query",
                                          "vit.encoder.layer.1.attention.attention.value"});
  CHECK(find_attention_sites(*model).size() == 2);
  const auto pixels = torch::randn({2, 3, 16, 16});
  CHECK(model->forward(pixels).logits.sizes() == torch::IntArrayRef({2, 3}));
}
