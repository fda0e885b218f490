#include "measure/parameter_count.h"

#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "models/deberta_v2.h"
#include "models/roberta.h"
#include "models/vit.h"
#include "params/parameters.h"
#include "peft/adapter.h"
#include "peft/lora.h"
#include "peft/method_registry.h"
#include "peft/prefix_tuning.h"
#include "sites/site_registry.h"
#include "train/trainable_selection.h"

using namespace capaboost;

namespace {

// RoBERTa-base's parameter count as Hugging Face's BertModel reports it (embeddings 39,000,576 +
// 12 layers × 7,087,872 + pooler 590,592), with its 24 query/value sites as real 768×768 layers and
// the rest lumped into one tensor.
constexpr int64_t kRobertaBaseParameters = 124645632;

struct RobertaBaseShape : torch::nn::Module {
  RobertaBaseShape() {
    int64_t in_sites = 0;
    for (int layer = 0; layer < 12; ++layer) {
      for (const char* name : {"query", "value", "output"}) {
        register_module(fmt::format("layer{}_{}", layer, name), TunableLinear(768, 768));
        in_sites += 768 * 768 + 768;
      }
    }
    register_parameter("rest", torch::empty({kRobertaBaseParameters - in_sites}));
    register_parameter("classifier_weight", torch::empty({2, 768}));
  }
};

double percent_rounded(double percent) { return std::round(percent * 100.0) / 100.0; }

// RoBERTa-base's count with its 12 self-attention modules as attention sites (12 heads × 64) that
// prefix tuning attaches to; their projections are lumped into the rest.
struct RobertaBaseAttentionShape : torch::nn::Module {
  RobertaBaseAttentionShape() {
    for (int layer = 0; layer < 12; ++layer) {
      register_module(fmt::format("layer{}_attention", layer), std::make_shared<AttentionSiteImpl>(12, 64));
    }
    register_parameter("rest", torch::empty({kRobertaBaseParameters}));
  }
};

// The registered method `name` attached to `model` as a run with `config` would.
void attach_method(torch::nn::Module& model, const std::string& name, const nlohmann::json& config) {
  const MethodSpec& method = find_method(name);
  method.attach(model, resolve_or_throw(method.parameters, config, "method " + name));
}

}  // namespace

TEST_CASE("effective parameters are the union of the branch masks", "[params]") {
  auto boost = CapaBoostOptions().branches(3).mask(MaskOptions().kind(MaskKind::kDiff).density(0.4).seed(1));
  Lora lora(LoraOptions(4).capaboost(boost), "site", 20, 10);
  BranchStack masks(boost, "site");
  int64_t expected = 0;
  for (auto [factor, shape] : {std::pair<std::string, std::vector<int64_t>>{"A", {4, 20}}, {"B", {10, 4}}}) {
    auto seen = masks.branch_mask(factor, 0, shape) | masks.branch_mask(factor, 1, shape) |
                masks.branch_mask(factor, 2, shape);
    expected += seen.sum().item<int64_t>();
  }
  CHECK(lora->parameter_count().dense == 4 * 20 + 10 * 4);
  CHECK(lora->parameter_count().effective == expected);
  // same-mask branches see one mask; dropout masks cover everything over training.
  Lora same(
      LoraOptions(4).capaboost(CapaBoostOptions().branches(3).mask(MaskOptions().kind(MaskKind::kSame))), "s",
      20, 10);
  CHECK(same->parameter_count().effective == 60);
  Lora dropout(
      LoraOptions(4).capaboost(CapaBoostOptions().branches(3).mask(MaskOptions().kind(MaskKind::kDropout))),
      "s", 20, 10);
  CHECK(dropout->parameter_count().effective == 120);
}

TEST_CASE("mean effective fraction over seeds matches 1-(1-s)^d", "[params]") {
  for (auto [d, expected] : {std::pair<int64_t, double>{2, 0.75}, {4, 0.9375}}) {
    double sum = 0;
    const int seeds = 200;
    for (int seed = 0; seed < seeds; ++seed) {
      auto boost =
          CapaBoostOptions().branches(d).mask(MaskOptions().kind(MaskKind::kDiff).density(0.5).seed(seed));
      Lora lora(LoraOptions(8).capaboost(boost), "s", 64, 64);
      const auto count = lora->parameter_count();
      sum += static_cast<double>(count.effective) / count.dense;
    }
    // Per seed the fraction has std ≈ 0.01 on 1,024 entries; the mean of 200 is within 0.003.
    CHECK(sum / seeds == Approx(expected).margin(0.003));
  }
}

TEST_CASE("% FT params reproduce the paper's RoBERTa-base budget table", "[params][paper]") {
  // Paper, Table "Budget configuration for RoBERTa-base": LoRA r=32 0.95%, CapaBoost 0.71%,
  // PAdapter bn=64 0.95%.
  SECTION("LoRA r=32 and CapaBoost-LoRA d=2 on query and value") {
    for (int64_t d : {1, 2}) {
      RobertaBaseShape model;
      auto boost = CapaBoostOptions().branches(d).mask(
          MaskOptions().kind(d == 1 ? MaskKind::kNone : MaskKind::kDiff).density(0.5).seed(42));
      attach_tuners(model, SiteSelector{{}, std::string("layer[0-9]+_(query|value)")},
                    [&](const std::string& site, const TunableLinearImpl& layer) {
                      return std::make_shared<LoraImpl>(LoraOptions(32).alpha(48).capaboost(boost), site,
                                                        layer.options.in_features(),
                                                        layer.options.out_features());
                    });
      freeze_backbone(model, {"classifier"});
      const auto report = count_parameters(model, {"classifier"});
      CHECK(report.backbone == kRobertaBaseParameters);
      CHECK(report.head == 2 * 768);
      CHECK(report.tuner_dense == 24 * 2 * 768 * 32);
      CHECK(report.trainable == report.tuner_dense + report.head);
      CHECK(percent_rounded(report.tuner_dense_percent()) == 0.95);
      CHECK(percent_rounded(report.tuner_effective_percent()) == (d == 1 ? 0.95 : 0.71));
    }
  }
  SECTION("Pfeiffer adapter bn=64, one per layer") {
    RobertaBaseShape model;
    attach_tuners(model, SiteSelector{{}, std::string("layer[0-9]+_output")},
                  [](const std::string& site, const TunableLinearImpl& layer) {
                    return std::make_shared<AdapterImpl>(AdapterOptions(64), site,
                                                         layer.options.out_features());
                  });
    const auto report = count_parameters(model, {"classifier"});
    CHECK(report.tuner_dense == 12 * (2 * 768 * 64 + 64 + 768));
    CHECK(percent_rounded(report.tuner_dense_percent()) == 0.95);
  }
  SECTION("Prefix-tuning l=64: 0.95% merged, the shared MLP's larger count while training") {
    RobertaBaseAttentionShape model;
    attach_method(model, "prefix", {{"targets", nlohmann::json::array()}, {"target_regex", "layer[0-9]+_attention"}});
    freeze_backbone(model);
    const auto report = count_parameters(model);
    CHECK(report.backbone == kRobertaBaseParameters);
    CHECK(report.tuner_dense == 12 * 2 * 64 * 768);
    CHECK(percent_rounded(report.tuner_dense_percent()) == 0.95);
    // Trained through E (64 × 768), 768 → 512 → 12 · 2 · 768: 9,898,496 entries, 7.94% of the model.
    const int64_t mlp = 64 * 768 + (768 * 512 + 512) + (512 * 12 * 2 * 768 + 12 * 2 * 768);
    CHECK(report.trainable == mlp);
    CHECK(percent_rounded(100.0 * report.trainable / report.backbone) == 7.94);
    CHECK(merge_prefixes(model) == 12);
    CHECK(count_parameters(model).trainable == report.tuner_dense);
  }
  SECTION("AdaLoRA on query and value, initial rank 48, average target rank 32") {
    RobertaBaseShape model;
    attach_method(model, "adalora", {{"targets", nlohmann::json::array()}, {"target_regex", "layer[0-9]+_(query|value)"}});
    const auto report = count_parameters(model, {"classifier"});
    // Each triplet holds a row of P, a λ and a column of Q: 768 + 1 + 768 entries.
    CHECK(report.tuner_dense == 24 * 48 * 1537);
    CHECK(report.tuner_effective == 24 * 32 * 1537);
    CHECK(percent_rounded(report.tuner_dense_percent()) == 1.42);
    // The paper prints 0.91% (budget table) and 1.07% (Table 2) for this setting; the target budget
    // counts 0.95%, LoRA r=32's own, and neither printed figure follows from initial 48 / target 32.
    CHECK(percent_rounded(report.tuner_effective_percent()) == 0.95);
  }
}

namespace {

// DeBERTaV3-base as transformers' DebertaV2Model counts it: embeddings 128,100 × 768 + LayerNorm
// (98,382,336), 12 layers × 7,087,872, relative-position embeddings 2 × 256 buckets × 768 + LayerNorm
// (394,752): the paper's "184M".
constexpr int64_t kDebertaV3BaseParameters = 183831552;

// The registered method `name` on a fresh DeBERTaV3-base classifier, as a run with `config` attaches it.
ParameterReport deberta_v3_base_budget(const std::string& name, const nlohmann::json& config) {
  DebertaV2ForSequenceClassification model(DebertaV2Options().num_labels(2));
  const MethodSpec& method = find_method(name);
  method.attach(*model, resolve_or_throw(method.parameters, config, "method " + name));
  return count_parameters(*model, model->head_prefixes());
}

// The six weight matrices of every layer (query/key/value projections, attention output, both
// feed-forward layers): `output.dense` matches the attention output and the feed-forward output.
const nlohmann::json kSixMatrices = {"query_proj", "key_proj", "value_proj", "output.dense", "intermediate.dense"};

}  // namespace

TEST_CASE("% FT params reproduce the paper's DeBERTaV3-base budget table", "[params][paper]") {
  // Paper, Table "Budget configuration for experiments on DeBERTaV3-base": LoRA r=8 0.72%, CapaBoost-LoRA
  // 0.54%, PAdapter bn=64 0.64%, CapaBoost-PAdapter bn=32 0.24%.
  SECTION("LoRA r=8 and CapaBoost-LoRA d=2 on all six weight matrices") {
    for (int64_t d : {1, 2}) {
      const auto report = deberta_v3_base_budget("lora", {{"rank", 8}, {"targets", kSixMatrices}, {"branches", d}});
      CHECK(report.backbone == kDebertaV3BaseParameters);
      // Per layer: 4 × (768×8 + 8×768) + 2 × (768×8 + 8×3072).
      CHECK(report.tuner_dense == 12 * (4 * 2 * 768 * 8 + 2 * (768 + 3072) * 8));
      CHECK(percent_rounded(report.tuner_dense_percent()) == 0.72);
      CHECK(percent_rounded(report.tuner_effective_percent()) == (d == 1 ? 0.72 : 0.54));
    }
    // The prose's self-attention placement cannot be that budget: query and value give 0.16%, all four
    // attention matrices 0.32%.
    const auto query_value = deberta_v3_base_budget("lora", {{"rank", 8}, {"targets", {"query_proj", "value_proj"}}});
    CHECK(percent_rounded(query_value.tuner_dense_percent()) == 0.16);
  }
  SECTION("PAdapter bn=64 and CapaBoost-PAdapter bn=32 d=2: the budget counts adapter weights, not biases") {
    const auto padapter = deberta_v3_base_budget("adapter", {{"bottleneck", 64}});
    const int64_t biases64 = 12 * (64 + 768);
    CHECK(padapter.tuner_dense == 12 * 2 * 768 * 64 + biases64);
    CHECK(percent_rounded(padapter.tuner_dense_percent()) == 0.65);  // with biases
    CHECK(percent_rounded(100.0 * (padapter.tuner_dense - biases64) / padapter.backbone) == 0.64);

    const auto boosted = deberta_v3_base_budget("adapter", {{"bottleneck", 32}, {"branches", 2}});
    const int64_t biases32 = 12 * (32 + 768);
    CHECK(boosted.tuner_dense == 12 * 2 * 768 * 32 + biases32);
    // Masks cover the weights only: 1 - (1 - 0.5)² of them are seen, every bias is.
    CHECK(percent_rounded(100.0 * (boosted.tuner_effective - biases32) / boosted.backbone) == 0.24);
  }
}

TEST_CASE("% FT params of BitFit and full fine-tuning count the backbone parameters they train", "[params][paper]") {
  // RoBERTa-base as a sequence classifier (no pooler: 124,645,632 − 590,592). BitFit trains every bias,
  // LayerNorm's included: per layer query/key/value/output 4 × 768, intermediate 3,072, output 768 and
  // two LayerNorms 2 × 768 (8,448), plus the embeddings' LayerNorm 768 — the paper's 0.08%.
  RobertaForSequenceClassification model(roberta_options().num_labels(2));
  SECTION("BitFit") {
    select_trainable_parameters(*model, find_method("bitfit").trains_backbone_parameter, model->head_prefixes());
    const auto report = count_parameters(*model, model->head_prefixes());
    CHECK(report.backbone == kRobertaBaseParameters - 590592);
    CHECK(report.tuner_effective == 0);
    CHECK(report.backbone_trained == 12 * 8448 + 768);
    CHECK(percent_rounded(report.fine_tuned_percent()) == 0.08);
  }
  SECTION("full fine-tuning") {
    select_trainable_parameters(*model, find_method("full").trains_backbone_parameter, model->head_prefixes());
    const auto report = count_parameters(*model, model->head_prefixes());
    CHECK(report.backbone_trained == report.backbone);
    CHECK(report.fine_tuned_percent() == 100.0);
  }
  SECTION("ProPETL: the shared module and every layer's mask scores, (L + 1)/L of the base budget") {
    // Paper: ProPETL-LoRA 1.04%, ProPETL-PAdapter 1.04%, ProPETL-Prefix 1.03%. Counting the prototype
    // once and a float score per masked entry per layer gives 13/12 of LoRA's, adapter's and prefix's
    // 0.95%: 1.03% for all three (the paper's 1.04% is not reproduced by this or by counting masks as bits).
    const int64_t lora_site = 2 * 768 * 32;  // A + B of one query or value projection
    const MethodSpec& lora = find_method("propetl_lora");
    lora.attach(*model, resolve_or_throw(lora.parameters, {{"rank", 32}}, "propetl_lora"));
    auto report = count_parameters(*model, model->head_prefixes());
    CHECK(report.tuner_dense == 2 * lora_site + 24 * lora_site);
    CHECK(percent_rounded(report.tuner_dense_percent()) == 1.03);
  }
  SECTION("ProPETL-Adapter bn=64 and ProPETL-Prefix l=64") {
    const MethodSpec& adapter = find_method("propetl_adapter");
    adapter.attach(*model, resolve_or_throw(adapter.parameters, {{"bottleneck", 64}}, "propetl_adapter"));
    const int64_t weights = 2 * 768 * 64;
    auto report = count_parameters(*model, model->head_prefixes());
    CHECK(report.tuner_dense == (weights + 64 + 768) + 12 * weights);
    CHECK(percent_rounded(report.tuner_dense_percent()) == 1.03);

    RobertaForSequenceClassification prefixed(roberta_options().num_labels(2));
    const MethodSpec& prefix = find_method("propetl_prefix");
    prefix.attach(*prefixed, resolve_or_throw(prefix.parameters, {{"prefix_length", 64}}, "propetl_prefix"));
    report = count_parameters(*prefixed, prefixed->head_prefixes());
    CHECK(report.tuner_dense == 13 * 64 * 2 * 768);
    CHECK(percent_rounded(report.tuner_dense_percent()) == 1.03);
  }
  SECTION("AdaMix bn=8 (the regularization table): every expert trains, one merged adapter remains") {
    const MethodSpec& adamix = find_method("adamix");
    adamix.attach(*model, resolve_or_throw(adamix.parameters, {{"bottleneck", 8}}, "adamix"));
    const auto report = count_parameters(*model, model->head_prefixes());
    // Per layer: 4 down experts (768·8 + 8) and one shared up-projection (8·768 + 768).
    CHECK(report.tuner_dense == 12 * (4 * (768 * 8 + 8) + (8 * 768 + 768)));
    CHECK(report.tuner_effective == 12 * ((768 * 8 + 8) + (8 * 768 + 768)));
    CHECK(percent_rounded(report.tuner_dense_percent()) == 0.30);
    CHECK(percent_rounded(report.tuner_effective_percent()) == 0.13);
  }
  SECTION("LoRA: the tuner alone, as tuner_effective_percent") {
    const MethodSpec& method = find_method("lora");
    method.attach(*model, resolve_or_throw(method.parameters, {{"rank", 8}, {"targets", {"query", "value"}}}, "lora"));
    select_trainable_parameters(*model, method.trains_backbone_parameter, model->head_prefixes());
    const auto report = count_parameters(*model, model->head_prefixes());
    CHECK(report.backbone_trained == 0);
    CHECK(report.fine_tuned_percent() == report.tuner_effective_percent());
  }
}

TEST_CASE("LoRA and CapaBoost-LoRA on ViT-B/16 hold the paper's 0.29M and 0.22M trainable parameters",
          "[params][paper][vit]") {
  // Table 5: LoRA r=8 on query and value of the 12 layers, 12 · 2 · 8 · (768 + 768) = 294,912 (0.29M);
  // CapaBoost-LoRA d=2 at density 0.5 keeps the union of two masks, about 3/4 of it (0.22M); d=4 the
  // union of four, about 15/16 (0.28M; the paper prints no count for it).
  VitForImageClassification model(VitOptions().num_labels(100));
  // ViT-B/16 as transformers counts ViTModel without a pooler: 85,798,656.
  CHECK(count_parameters(*model, model->head_prefixes()).backbone == 85798656);
  for (int64_t d : {1, 2, 4}) {
    INFO("branches " << d);
    VitForImageClassification tuned(VitOptions().num_labels(100));
    const MethodSpec& lora = find_method("lora");
    lora.attach(*tuned, resolve_or_throw(lora.parameters, {{"rank", 8}, {"branches", d}}, "method lora"));
    const auto report = count_parameters(*tuned, tuned->head_prefixes());
    CHECK(report.tuner_dense == 294912);
    const double millions = std::round(static_cast<double>(report.tuner_effective) / 1e4) / 100.0;
    CHECK(millions == (d == 1 ? 0.29 : d == 2 ? 0.22 : 0.28));
  }
}
