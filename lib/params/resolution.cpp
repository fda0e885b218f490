#include "params/resolution.h"

#include <fmt/format.h>

#include <deque>
#include <map>
#include <set>

namespace capaboost {

Resolution resolve_parameters(const ParameterList& root, const nlohmann::json& given) {
  Resolution resolution;
  std::deque<ParameterDef> pending(root.begin(), root.end());
  std::map<std::string, std::string> owners;  // name → owner of the definition that applied
  while (!pending.empty()) {
    ParameterDef def = std::move(pending.front());
    pending.pop_front();
    if (const auto seen = owners.find(def.name); seen != owners.end()) {
      resolution.problems.push_back(
          {def.name, fmt::format("'{}' is declared by both {} and {}; a parameter needs one home", def.name,
                                 seen->second.empty() ? "?" : seen->second, def.owner.empty() ? "?" : def.owner)});
      continue;
    }
    owners[def.name] = def.owner;
    nlohmann::json value;
    if (given.contains(def.name)) {
      value = given.at(def.name);
      const std::string problem = check_value(def, value, given);
      if (!problem.empty()) {
        resolution.problems.push_back({def.name, problem});
        resolution.incomplete |= static_cast<bool>(def.selected_parameters);
        resolution.definitions.push_back(def);
        continue;
      }
    } else if (def.derive) {
      value = def.derive(resolution.config);
    } else if (!def.fallback.is_null()) {
      value = def.fallback;
    } else if (!def.may_be_unset) {
      resolution.problems.push_back({def.name, fmt::format("'{}' is required{}: {}", def.name,
                                                           def.owner.empty() ? "" : " by " + def.owner, def.doc)});
      resolution.incomplete |= static_cast<bool>(def.selected_parameters);
    }
    if (!value.is_null()) {
      if (def.type == ParameterType::kNumber) value = value.get<double>();
      resolution.config[def.name] = value;
      if (def.selected_parameters) {
        for (auto& selected : def.selected_parameters(value)) pending.push_back(std::move(selected));
      }
    }
    resolution.definitions.push_back(std::move(def));
  }
  for (const auto& item : given.items()) {
    if (!owners.count(item.key())) resolution.unused.push_back(item.key());
  }
  return resolution;
}

}  // namespace capaboost
