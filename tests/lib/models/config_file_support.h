#pragma once
// Config tests write a config.json into a scratch folder and load it back.

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/temp_dir.h"

namespace capaboost::testing {

/// Writes `json` as `dir`/config.json and returns its path.
inline std::string write_config(const TempDir& dir, const nlohmann::json& json) {
  const auto path = dir.file("config.json");
  std::ofstream(path) << json.dump();
  return path;
}

}  // namespace capaboost::testing
