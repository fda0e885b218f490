#pragma once
// A resolved run configuration with typed access: what methods, tasks and measures read their
// parameters from. Every declared parameter is present after resolution, so there is no fallback
// value to restate at the point of use.
//
//   const Parameters config = resolve_or_throw(lora_parameters(), {{"rank", 16}}, "method lora");
//   const auto rank = config.get<int64_t>("rank");   // 16; alpha, targets, … hold their defaults

#include <nlohmann/json.hpp>

#include <c10/util/Exception.h>

#include <string>

#include "params/parameter.h"

namespace capaboost {

class Parameters {
 public:
  Parameters() = default;
  /// `resolved`: a JSON object produced by resolve_parameters (or a record's config).
  explicit Parameters(nlohmann::json resolved);

  /// The value of `name` as T. A name the configuration lacks is a contract error: the code asked for a
  /// parameter its plugin does not declare.
  template <typename T>
  T get(const std::string& name) const {
    TORCH_CHECK(values_.contains(name), "parameter '", name, "' is not in the resolved configuration ",
                values_.dump(), "; declare it in the plugin that reads it");
    try {
      return values_.at(name).get<T>();
    } catch (const nlohmann::json::exception& e) {
      TORCH_CHECK(false, "parameter '", name, "' = ", values_.at(name).dump(), " has the wrong type: ", e.what());
    }
  }

  bool contains(const std::string& name) const { return values_.contains(name); }
  const nlohmann::json& json() const { return values_; }

 private:
  nlohmann::json values_ = nlohmann::json::object();
};

/// Resolves `given` against `definitions` (params/resolution.h) and throws, naming `what` and listing
/// every problem, when a value is invalid, a required one is missing or a given name is not declared.
/// For code that builds configurations itself; the harness reports problems with file and line instead.
Parameters resolve_or_throw(const ParameterList& definitions, const nlohmann::json& given, const std::string& what);

}  // namespace capaboost
