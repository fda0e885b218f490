#pragma once
// What every PEFT tuner shares, whichever extension point of a backbone it lives on: a linear site
// (sites/site_tuner.h: LoRA, adapters) or an attention site's keys and values
// (sites/key_value_tuner.h: prefix tuning). Parameter counting, freezing and checkpoint filtering
// find tuners by this type, so a new kind of tuner is counted and trained without further changes.

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace capaboost {

/// Parameter counts of one tuner.
struct TunerParameterCount {
  int64_t dense = 0;  ///< trainable entries stored
  int64_t effective =
      0;  ///< entries that any branch can see (union of the branch masks; = dense without masks)
};

/// Analytic forward FLOPs per token that a tuner adds to its site (multiply-add = 2 FLOPs).
struct TunerFlops {
  double executed = 0;      ///< what this implementation computes (masked factors are multiplied densely)
  double sparse_ideal = 0;  ///< what a kernel that skips masked-out entries would compute
};

/// A tuner: a module whose parameters train while the backbone stays frozen. It is registered as a
/// child module of its site under `kind()`, so its parameter names extend the site's
/// (`…attention.self.query.lora.A`).
class TunerImpl : public torch::nn::Module {
 public:
  /// The tuner's short name; also the child-module name under the site ("lora", "adapter", "prefix").
  virtual std::string kind() const = 0;

  /// Trainable parameter counts, dense and effective (CapaBoost masks).
  virtual TunerParameterCount parameter_count() const = 0;

  /// The static masks the tuner's forwards applied to its factors (CapaBoost's branch masks), one
  /// tensor per factor in a fixed order, on the CPU; none for a tuner without static masks. Records
  /// digest them: a run's masks are drawn on the CPU from its seed, the same whatever device it trains on.
  virtual std::vector<torch::Tensor> applied_masks() const { return {}; }
};

using TunerPtr = std::shared_ptr<TunerImpl>;

/// What every site's attach does: registers `tuner` as `site`'s child module `tuner->kind()` and keeps it
/// in `slot`. Refuses a null tuner and a second one; `site_kind` ("TunableLinear") names the site.
template <typename Tuner>
void attach_tuner(torch::nn::Module& site, std::shared_ptr<Tuner>& slot, std::shared_ptr<Tuner> tuner,
                  const char* site_kind) {
  TORCH_CHECK(tuner, site_kind, "::attach: null tuner");
  TORCH_CHECK(!slot, site_kind, "::attach: this site already carries a '", slot->kind(), "' tuner; detach it first");
  const std::string name = tuner->kind();  // before the move: argument evaluation order is unspecified
  slot = site.register_module(name, std::move(tuner));
}

/// Unregisters the tuner in `slot` from `site` and clears `slot`; nothing without one.
template <typename Tuner>
void detach_tuner(torch::nn::Module& site, std::shared_ptr<Tuner>& slot) {
  if (!slot) return;
  site.unregister_module(slot->kind());
  slot.reset();
}

}  // namespace capaboost
