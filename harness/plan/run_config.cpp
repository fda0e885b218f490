#include "plan/run_config.h"

#include <fmt/format.h>

namespace capaboost::harness {

std::string RunConfig::display_name(const std::vector<std::string>& names) const {
  std::string text = label;
  for (const auto& name : names) {
    if (!config.contains(name)) continue;
    const auto& value = config.at(name);
    text += fmt::format(" {}={}", name, value.is_string() ? value.get<std::string>() : value.dump());
  }
  return text;
}

}  // namespace capaboost::harness
