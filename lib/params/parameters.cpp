#include "params/parameters.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "params/resolution.h"
#include "util/closest_match.h"

namespace capaboost {

Parameters::Parameters(nlohmann::json resolved) : values_(std::move(resolved)) {
  TORCH_CHECK(values_.is_object(), "Parameters: a configuration is a JSON object, got ", values_.dump());
}

Parameters resolve_or_throw(const ParameterList& definitions, const nlohmann::json& given, const std::string& what) {
  const Resolution resolution = resolve_parameters(definitions, given);
  std::vector<std::string> problems;
  for (const auto& problem : resolution.problems) problems.push_back(problem.message);
  std::vector<std::string> declared;
  for (const auto& def : resolution.definitions) declared.push_back(def.name);
  for (const auto& name : resolution.unused) {
    problems.push_back(fmt::format("'{}' is not a parameter of {}{}", name, what, did_you_mean(name, declared)));
  }
  TORCH_CHECK(problems.empty(), what, ": ", fmt::format("{}", fmt::join(problems, "; ")));
  return Parameters(resolution.config);
}

}  // namespace capaboost
