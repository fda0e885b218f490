// The suite's bottleneck adapters against AdapterHub's `adapters` (adapter-transformers, the library the
// paper builds on; pinned in tests/oracle/requirements.txt), generated live by
// tests/oracle/adapters_reference.py on the random RoBERTa classifier of the PEFT parity test: the
// library adds its configuration, re-draws every trainable tensor and records, in training mode without
// dropout, the logits of a padded batch and the gradient of the cross-entropy with respect to every
// trainable tensor. The suite loads the same checkpoint, attaches its `adapter` method through the
// registry as a run does, takes the library's values and must give the same logits, loss and gradients.
//
// The two placements the paper's adapters take:
// - Pfeiffer (PAdapter, SeqBnConfig: original_ln_before, residual_before_ln, original_ln_after) is
//   `placement: after_layer_norm` on each layer's feed-forward block: LN(s + A(LN(s))), s = h + x.
// - Houlsby (HAdapter, DoubleSeqBnConfig: adapters after the attention and the feed-forward blocks,
//   before their LayerNorm, swish) is the default placement on `targets: [output.dense]`:
//   LN(h + A(h) + x). The library applies the block's dropout before its adapter where the suite's
//   adapter reads the projection before it; without dropout, as here, the two are the same function.

#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "lib/peft/oracle_step_parity.h"
#include "peft/adapter.h"
#include "sites/site_registry.h"
#include "support/oracle_python.h"
#include "support/temp_dir.h"

using namespace capaboost;

namespace {

constexpr double kAdaptersTolerance = 1e-5;

/// Every trainable tensor of `model` by the oracle's names: "<block>.adapter.<tensor>" for an adapter on a
/// residual block or on its output projection (<block>.dense), the head's by their own.
std::map<std::string, torch::Tensor> adapter_tensors_by_oracle_name(TaskModelImpl& model) {
  std::map<std::string, torch::Tensor> named;
  for (const auto& [name, tuner] : find_tuners(model)) {
    auto* adapter = dynamic_cast<AdapterImpl*>(tuner.get());
    REQUIRE(adapter != nullptr);
    std::string block = name.substr(0, name.size() - std::string(".adapter").size());
    const std::string projection = ".dense";
    if (block.size() > projection.size() && block.compare(block.size() - projection.size(), projection.size(), projection) == 0) {
      block.resize(block.size() - projection.size());
    }
    named[block + ".adapter.down"] = adapter->down;
    named[block + ".adapter.down_bias"] = adapter->down_bias;
    named[block + ".adapter.up"] = adapter->up;
    named[block + ".adapter.up_bias"] = adapter->up_bias;
  }
  named.merge(capaboost::testing::head_tensors(model));
  return named;
}

/// The library's `configuration` (an adapters_reference.py one) against the suite's `adapter` method with
/// `config`: the same trainable tensors, logits, loss and gradients (lib/peft/oracle_step_parity.h).
void check_against_adapters(const std::string& configuration, const nlohmann::json& config) {
  capaboost::testing::TempDir dir;
  capaboost::testing::run_oracle("adapters_reference.py", {dir.path().string(), configuration});
  Backbone backbone = capaboost::testing::load_with_method(dir.file("base"), "adapter", config);
  capaboost::testing::check_step_parity(*backbone.model, adapter_tensors_by_oracle_name(*backbone.model),
                                        dir.path().string(), "adapters " + configuration, kAdaptersTolerance);
}

}  // namespace

TEST_CASE("PAdapter after the FFN and its LayerNorm: logits and every gradient match adapters' SeqBnConfig, live",
          "[oracle][adapters]") {
  check_against_adapters("pfeiffer", {{"bottleneck", 8}, {"placement", "after_layer_norm"}});
}

TEST_CASE("HAdapter after the attention and FFN projections: logits and every gradient match adapters' DoubleSeqBnConfig, live",
          "[oracle][adapters]") {
  check_against_adapters("houlsby", {{"bottleneck", 8},
                                     {"activation", "swish"},
                                     {"targets", {"output.dense"}},
                                     {"target_regex", ""}});
}
