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
  } catch (const nlohmann::json::parse_error& error) {
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

}  // namespace capaboost
