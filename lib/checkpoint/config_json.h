#pragma once
// Reading a Hugging Face `config.json` with errors that name the file and the field.

#include <c10/util/Exception.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace capaboost {

/// A parsed config.json. Typed accessors check the JSON type strictly (an integer field given as 768.5
/// or "768" is an error, not a silent conversion) and report `<file>: field '<name>' …` on any problem.
class ConfigJson {
 public:
  /// Reads `path`; throws naming the file when it is missing, unreadable or not a JSON object.
  static ConfigJson load(const std::string& path);
  /// Wraps an already parsed object; `path` is used in error messages.
  ConfigJson(nlohmann::json json, std::string path);

  const std::string& path() const { return path_; }
  const nlohmann::json& json() const { return json_; }
  /// True when the field is present and not null (HF writes unset options as null).
  bool has(const std::string& field) const;

  /// A field that must be present. T is one of int64_t, double, bool, std::string.
  template <typename T>
  T required(const std::string& field) const;
  /// A field that may be absent or null, then `fallback`.
  template <typename T>
  T optional(const std::string& field, T fallback) const {
    return has(field) ? required<T>(field) : fallback;
  }
  /// The string field (or `fallback` when absent) through `parse` (e.g. parse_activation); a value
  /// `parse` rejects is reported as `<file>: field '<name>': <parse's message>`.
  template <typename Parse>
  auto parsed(const std::string& field, const std::string& fallback, Parse parse) const
      -> decltype(parse(fallback)) {
    const auto value = optional<std::string>(field, fallback);
    try {
      return parse(value);
    } catch (const c10::Error& error) {
      TORCH_CHECK(false, path_, ": field '", field, "': ", error.what_without_backtrace());
    }
  }

 private:
  nlohmann::json json_;
  std::string path_;
};

template <>
int64_t ConfigJson::required<int64_t>(const std::string& field) const;
template <>
double ConfigJson::required<double>(const std::string& field) const;
template <>
bool ConfigJson::required<bool>(const std::string& field) const;
template <>
std::string ConfigJson::required<std::string>(const std::string& field) const;

/// The label names of `id2label` ({"0": name, "1": name, …}) in id order; every id from 0 to n-1 must
/// be there. Throws naming the file on any other shape.
std::vector<std::string> parse_id2label(const ConfigJson& config);

/// A classifier's labels as transformers reads them.
struct ConfigLabels {
  int64_t num_labels = 2;
  std::vector<std::string> names;  ///< empty: "LABEL_<i>"
};
/// From id2label when present (num_labels, when also given, must agree), else num_labels (default 2).
ConfigLabels parse_labels(const ConfigJson& config);

/// Sets "id2label" and "label2id" in `json` as transformers writes them ("LABEL_<i>" for unnamed labels).
void write_labels(nlohmann::json& json, int64_t num_labels, const std::vector<std::string>& names);

/// Writes `json` to `path` atomically, indented by 2 as Hugging Face's save_pretrained does.
void save_config_json(const std::string& path, const nlohmann::json& json);

}  // namespace capaboost
