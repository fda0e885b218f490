#include "params/parameter.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "util/closest_match.h"

namespace capaboost {
namespace {

ParameterDef make(std::string name, ParameterType type, std::string doc) {
  ParameterDef def;
  def.name = std::move(name);
  def.type = type;
  def.doc = std::move(doc);
  return def;
}

bool has_type(const nlohmann::json& value, ParameterType type) {
  switch (type) {
    case ParameterType::kInt: return value.is_number_integer();
    case ParameterType::kNumber: return value.is_number() && std::isfinite(value.get<double>());
    case ParameterType::kString: return value.is_string();
    case ParameterType::kBool: return value.is_boolean();
    case ParameterType::kStringList:
      return value.is_array() && std::all_of(value.begin(), value.end(), [](const auto& v) { return v.is_string(); });
  }
  return false;
}

std::string bound_text(double value) { return fmt::format("{:g}", value); }

}  // namespace

std::string describe(ParameterType type) {
  switch (type) {
    case ParameterType::kInt: return "an integer";
    case ParameterType::kNumber: return "a number";
    case ParameterType::kString: return "a string";
    case ParameterType::kBool: return "true or false";
    case ParameterType::kStringList: return "a list of strings";
  }
  return "?";
}

std::string to_string(ParameterType type) {
  switch (type) {
    case ParameterType::kInt: return "int";
    case ParameterType::kNumber: return "number";
    case ParameterType::kString: return "string";
    case ParameterType::kBool: return "bool";
    case ParameterType::kStringList: return "list";
  }
  return "?";
}

ParameterDef ParameterDef::integer(std::string name, std::string doc) {
  return make(std::move(name), ParameterType::kInt, std::move(doc));
}
ParameterDef ParameterDef::number(std::string name, std::string doc) {
  return make(std::move(name), ParameterType::kNumber, std::move(doc));
}
ParameterDef ParameterDef::text(std::string name, std::string doc) {
  return make(std::move(name), ParameterType::kString, std::move(doc));
}
ParameterDef ParameterDef::boolean(std::string name, std::string doc) {
  return make(std::move(name), ParameterType::kBool, std::move(doc));
}
ParameterDef ParameterDef::text_list(std::string name, std::string doc) {
  return make(std::move(name), ParameterType::kStringList, std::move(doc));
}

ParameterDef& ParameterDef::defaults_to(nlohmann::json value) {
  fallback = std::move(value);
  return *this;
}
ParameterDef& ParameterDef::derived(std::string rule_text, std::function<nlohmann::json(const nlohmann::json&)> compute) {
  derived_rule = std::move(rule_text);
  derive = std::move(compute);
  return *this;
}
ParameterDef& ParameterDef::unkeyed_at_default() {
  if (fallback.is_null()) {
    throw std::logic_error(fmt::format("parameter '{}': unkeyed_at_default needs a plain default (defaults_to first)", name));
  }
  keyed_at_default = false;
  return *this;
}
ParameterDef& ParameterDef::optional() {
  may_be_unset = true;
  return *this;
}
ParameterDef& ParameterDef::at_least(double bound) {
  min = bound;
  min_exclusive = false;
  return *this;
}
ParameterDef& ParameterDef::above(double bound) {
  min = bound;
  min_exclusive = true;
  return *this;
}
ParameterDef& ParameterDef::at_most(double bound) {
  max = bound;
  return *this;
}
ParameterDef& ParameterDef::one_of(std::function<std::vector<std::string>()> allowed) {
  choices = std::move(allowed);
  return *this;
}
ParameterDef& ParameterDef::checked_by(std::function<std::string(const nlohmann::json&, const nlohmann::json&)> check) {
  rule = std::move(check);
  return *this;
}
ParameterDef& ParameterDef::selects(std::function<ParameterList(const nlohmann::json&)> parameters_of) {
  selected_parameters = std::move(parameters_of);
  return *this;
}
ParameterDef& ParameterDef::owned_by(std::string owner_name) {
  owner = std::move(owner_name);
  return *this;
}

std::string ParameterDef::default_text() const {
  if (derive) return derived_rule;
  if (!fallback.is_null()) return fallback.is_string() ? fallback.get<std::string>() : fallback.dump();
  return may_be_unset ? "unset" : "required";
}

ParameterList owned(ParameterList list, const std::string& owner) {
  for (auto& def : list) {
    if (def.owner.empty()) def.owner = owner;
  }
  return list;
}

std::string check_value(const ParameterDef& def, const nlohmann::json& value, const nlohmann::json& given) {
  if (!has_type(value, def.type)) {
    return fmt::format("'{}' must be {} ({}), got {}", def.name, describe(def.type), def.doc, value.dump());
  }
  if (def.type == ParameterType::kInt || def.type == ParameterType::kNumber) {
    const double v = value.get<double>();
    const bool below = def.min && (def.min_exclusive ? v <= *def.min : v < *def.min);
    const bool beyond = def.max && v > *def.max;
    if (below || beyond) {
      std::vector<std::string> limits;
      if (def.min) limits.push_back(fmt::format("{} {}", def.min_exclusive ? ">" : ">=", bound_text(*def.min)));
      if (def.max) limits.push_back(fmt::format("<= {}", bound_text(*def.max)));
      return fmt::format("'{}' = {} is out of range: must be {}", def.name, value.dump(), fmt::join(limits, " and "));
    }
  }
  if (def.choices && def.type == ParameterType::kString) {
    const auto allowed = def.choices();
    const auto text = value.get<std::string>();
    if (std::find(allowed.begin(), allowed.end(), text) == allowed.end()) {
      return fmt::format("unknown {} '{}'{}; choose one of: {}", def.name, text, did_you_mean(text, allowed),
                         fmt::join(allowed, ", "));
    }
  }
  if (def.rule) return def.rule(value, given);
  return "";
}

}  // namespace capaboost
