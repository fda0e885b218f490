#pragma once
// ProPETL-Prefix (Zeng et al., 2023): one prefix prototype P (l, 2C) — keys then values — made by
// an MLP from a small table (peft/prefix_tuning.h's PrefixEncoder serving one layer) and shared by
// every attention site; each site attends over P ⊙ M_site, a learned binary mask on the generated
// prefix (peft/learned_mask.h), not on the MLP's weights. The budget counts P and every site's
// scores, l·2C each (13 × 64 × 1536 on RoBERTa-base: the paper's 1.03%); the MLP's larger count is
// what trains (`trainable` in a run record).

#include <torch/torch.h>

#include <string>

#include "peft/prefix_tuning.h"
#include "sites/key_value_tuner.h"

namespace capaboost {

struct ProPetlPrefixOptions {
  /// Fraction of the prefix's entries a site's mask keeps (ProPETL's prefix runs: 0.1).
  TORCH_ARG(double, keep) = 0.1;
  /// The fan-in the scores are drawn with (0: l·2C); ProPETL draws all sites' scores as one tensor.
  TORCH_ARG(int64_t, score_fan_in) = 0;
};

class ProPetlPrefixImpl : public KeyValueTunerImpl {
 public:
  /// `prototype` serves one layer (its layer 0); `owns_prototype`: this site registers it (one site does).
  ProPetlPrefixImpl(const ProPetlPrefixOptions& options, std::string site, PrefixEncoder prototype,
                    bool owns_prototype, int64_t num_heads, int64_t head_size);

  std::string kind() const override { return "propetl_prefix"; }
  KeyValues extend(KeyValues state) override;
  TunerParameterCount parameter_count() const override;

  /// This site's masked prefix, keys and values (l, C) each.
  std::pair<torch::Tensor, torch::Tensor> masked_prefix();

  ProPetlPrefixOptions options;
  torch::Tensor mask_scores;  // (l, 2C)

 private:
  PrefixEncoder prototype_;
  bool owns_prototype_;
  std::string site_;
  int64_t num_heads_;
  int64_t head_size_;
};
TORCH_MODULE(ProPetlPrefix);

}  // namespace capaboost
