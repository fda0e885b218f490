#pragma once
// A run parameter as its owner declares it: name, type, range or choices, default, one-line doc.
//
// Every parameter has one home: the method, task, measure or shared group that uses it declares it
// next to its implementation, and nothing else restates its default. A parameter whose value picks a
// plugin (`method: lora`, `task: RTE`) brings that plugin's parameters with it (`selects`), so what a
// run accepts is computed from the registries, never listed by hand.
//
//   ParameterList lora{
//       ParameterDef::integer("rank", "LoRA rank r").defaults_to(LoraOptions().rank()).at_least(1),
//       ParameterDef::text("lora_init", "how A starts").defaults_to("peft").one_of(lora_init_names),
//   };

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace capaboost {

enum class ParameterType { kInt, kNumber, kString, kBool, kStringList };

/// "an integer", "a number", "a string", "true or false", "a list of strings" (for messages).
std::string describe(ParameterType type);
/// "int", "number", "string", "bool", "list" (for listings).
std::string to_string(ParameterType type);

struct ParameterDef;
using ParameterList = std::vector<ParameterDef>;

struct ParameterDef {
  static ParameterDef integer(std::string name, std::string doc);
  static ParameterDef number(std::string name, std::string doc);
  static ParameterDef text(std::string name, std::string doc);
  static ParameterDef boolean(std::string name, std::string doc);
  static ParameterDef text_list(std::string name, std::string doc);

  // Fluent setters (each returns *this).
  ParameterDef& defaults_to(nlohmann::json value);
  /// A default computed from the parameters resolved before this one (declaration order); `rule`
  /// documents it ("diff when branches > 1, else none").
  ParameterDef& derived(std::string rule, std::function<nlohmann::json(const nlohmann::json& resolved)> compute);
  /// For a parameter added after runs were recorded, whose default reproduces those runs: at its
  /// default it stays in the run's config but is left out of the run key, so the recorded runs still
  /// match; any other value is keyed. Call after defaults_to.
  ParameterDef& unkeyed_at_default();
  /// No default: the parameter may stay unset (an alternative way to give another parameter).
  ParameterDef& optional();
  ParameterDef& at_least(double bound);
  ParameterDef& above(double bound);
  ParameterDef& at_most(double bound);
  /// The allowed strings, asked when checked (registries grow while the program starts).
  ParameterDef& one_of(std::function<std::vector<std::string>()> choices);
  /// A further rule: returns "" when `value` is fine, else the message. `given` holds every parameter
  /// the run was given (for rules spanning two parameters).
  ParameterDef& checked_by(std::function<std::string(const nlohmann::json& value, const nlohmann::json& given)> rule);
  /// The value names a plugin whose own parameters then apply too.
  ParameterDef& selects(std::function<ParameterList(const nlohmann::json& value)> parameters_of);
  /// Who declares it ("method lora", "CapaBoost"): listings and messages name it.
  ParameterDef& owned_by(std::string owner_name);

  std::string name;
  ParameterType type = ParameterType::kString;
  std::string doc;
  std::string owner;
  nlohmann::json fallback;  ///< the default; null when required, derived or optional
  std::string derived_rule;
  std::function<nlohmann::json(const nlohmann::json&)> derive;
  bool may_be_unset = false;
  bool keyed_at_default = true;  ///< false: see unkeyed_at_default
  std::optional<double> min, max;
  bool min_exclusive = false;
  std::function<std::vector<std::string>()> choices;
  std::function<std::string(const nlohmann::json&, const nlohmann::json&)> rule;
  std::function<ParameterList(const nlohmann::json&)> selected_parameters;

  bool required() const { return fallback.is_null() && !derive && !may_be_unset; }
  /// The default as listings print it: the value, the derivation rule, "required" or "unset".
  std::string default_text() const;
};

/// Sets `owner` on every definition of `list` that has none; returns the list.
ParameterList owned(ParameterList list, const std::string& owner);

/// Checks `value` against `def`'s type, range, choices and rule; "" when valid, else a message such as
/// "'density' = 1.5 is out of range: must be > 0 and <= 1" or "unknown mask 'dif' (did you mean
/// 'diff'?); choose one of: none, diff, same, dropout, nm".
std::string check_value(const ParameterDef& def, const nlohmann::json& value,
                        const nlohmann::json& given = nlohmann::json::object());

}  // namespace capaboost
