#pragma once
// One planned run: a fully resolved configuration under one measure, and the key that identifies it.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace capaboost::harness {

struct RunConfig {
  std::string label;    ///< the spec row it came from (not part of the key)
  std::string measure;  ///< what the run computes
  /// Every effective parameter: what the spec gave, every default filled (params/resolution.h).
  nlohmann::json config = nlohmann::json::object();
  /// Names in `config` at a default declared unkeyed_at_default (params/parameter.h): left out of the
  /// key, so runs recorded before the parameter existed keep their keys.
  std::vector<std::string> unkeyed;
  std::string data_fingerprint;  ///< "none" for runs without a dataset
  /// Identity of a backbone the suite builds itself (its recipe), empty for every other model: a
  /// spec that says `model: mini` must not reuse runs of an encoder built by an older recipe.
  std::string model_fingerprint;
  std::string key;  ///< hex SHA-256 of the canonical (measure, config, code, data[, model])

  /// Short, human-readable: "LoRA rank=8 seed=42" (the label, then the values of `axis_names`).
  std::string display_name(const std::vector<std::string>& axis_names) const;
};

}  // namespace capaboost::harness
