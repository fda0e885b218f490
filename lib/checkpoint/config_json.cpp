#include "checkpoint/config_json.h"

#include <c10/util/Exception.h>

#include <fstream>
#include <sstream>

#include "util/atomic_file.h"

namespace capaboost {
namespace {

const nlohmann::json& field_value(const ConfigJson& config, const std::string& field) {
  TORCH_CHECK(config.has(field), config.path(), ": required field '", field, "' is missing");
  return config.json()[field];
}

[[noreturn]] void wrong_type(const ConfigJson& config, const std::string& field, const char* expected) {
  TORCH_CHECK(false, config.path(), ": field '", field, "' must be ", expected, ", got ",
              config.json()[field].dump());
}

}  // namespace

ConfigJson ConfigJson::load(const std::string& path) {
  std::ifstream in(path);
  TORCH_CHECK(in, path, ": cannot open the model config (expected a Hugging Face config.json)");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& error) {  // parse_error, or out_of_range for a number like 1e400
    TORCH_CHECK(false, path, ": not valid JSON: ", error.what());
  }
  TORCH_CHECK(json.is_object(), path, ": the config must be a JSON object");
  return ConfigJson(std::move(json), path);
}

ConfigJson::ConfigJson(nlohmann::json json, std::string path)
    : json_(std::move(json)), path_(std::move(path)) {}

bool ConfigJson::has(const std::string& field) const {
  return json_.contains(field) && !json_[field].is_null();
}

template <>
int64_t ConfigJson::required<int64_t>(const std::string& field) const {
  const auto& value = field_value(*this, field);
  if (!value.is_number_integer()) wrong_type(*this, field, "an integer");
  return value.get<int64_t>();
}

template <>
double ConfigJson::required<double>(const std::string& field) const {
  const auto& value = field_value(*this, field);
  if (!value.is_number()) wrong_type(*this, field, "a number");
  return value.get<double>();
}

template <>
bool ConfigJson::required<bool>(const std::string& field) const {
  const auto& value = field_value(*this, field);
  if (!value.is_boolean()) wrong_type(*this, field, "true or false");
  return value.get<bool>();
}

template <>
std::string ConfigJson::required<std::string>(const std::string& field) const {
  const auto& value = field_value(*this, field);
  if (!value.is_string()) wrong_type(*this, field, "a string");
  return value.get<std::string>();
}

void save_config_json(const std::string& path, const nlohmann::json& json) {
  write_file_atomically(path, json.dump(2) + "\n");
}

// id2label is a JSON object {"0": name, "1": name, …}; every id from 0 to n-1 must be there.
std::vector<std::string> parse_id2label(const ConfigJson& config) {
  const auto& map = config.json()["id2label"];
  TORCH_CHECK(map.is_object() && !map.empty(), config.path(),
              ": field 'id2label' must be a non-empty object {\"0\": name, …}, got ", map.dump());
  std::vector<std::string> names(map.size());
  for (const auto& [key, value] : map.items()) {
    size_t used = 0;
    int64_t id = -1;
    try {
      id = std::stoll(key, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    TORCH_CHECK(used == key.size() && id >= 0 && id < static_cast<int64_t>(names.size()), config.path(),
                ": field 'id2label' has key '", key, "'; keys must be the ids 0..", names.size() - 1);
    TORCH_CHECK(value.is_string(), config.path(), ": field 'id2label' maps ", key, " to ", value.dump(),
                "; names must be strings");
    names[id] = value.get<std::string>();
  }
  return names;
}

void write_labels(nlohmann::json& json, int64_t num_labels, const std::vector<std::string>& names) {
  nlohmann::json id2label = nlohmann::json::object();
  nlohmann::json label2id = nlohmann::json::object();
  for (int64_t i = 0; i < num_labels; ++i) {
    const auto name = names.empty() ? "LABEL_" + std::to_string(i) : names.at(static_cast<size_t>(i));
    id2label[std::to_string(i)] = name;
    label2id[name] = i;
  }
  json["id2label"] = id2label;
  json["label2id"] = label2id;
}

ConfigLabels parse_labels(const ConfigJson& config) {
  ConfigLabels labels;
  if (!config.has("id2label")) {
    labels.num_labels = config.optional<int64_t>("num_labels", 2);
    return labels;
  }
  labels.names = parse_id2label(config);
  labels.num_labels = static_cast<int64_t>(labels.names.size());
  if (config.has("num_labels")) {
    const auto num_labels = config.required<int64_t>("num_labels");
    TORCH_CHECK(num_labels == labels.num_labels, config.path(), ": field 'num_labels' is ", num_labels,
                " but 'id2label' names ", labels.num_labels, " labels");
  }
  return labels;
}


}  // namespace capaboost
