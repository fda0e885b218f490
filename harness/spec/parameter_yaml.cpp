#include "spec/parameter_yaml.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

namespace capaboost::harness {

SourceMark mark_of(const std::string& file, const YAML::Node& node) {
  const auto mark = node.Mark();
  return {file, mark.is_null() ? 0 : mark.line + 1, mark.is_null() ? 0 : mark.column + 1};
}

std::optional<nlohmann::json> parameter_from_yaml(const std::string& name, const CatalogueEntry& entry,
                                                  const YAML::Node& node, const std::string& file,
                                                  std::vector<Diagnostic>& diagnostics) {
  auto wrong_type = [&] {
    diagnostics.push_back(Diagnostic::at(
        mark_of(file, node), fmt::format("'{}' must be {} ({})", name, describe(entry.type), fmt::join(entry.docs, "; "))));
    return std::nullopt;
  };
  switch (entry.type) {
    case ParameterType::kInt: {
      int64_t v = 0;
      if (!node.IsScalar() || !YAML::convert<int64_t>::decode(node, v)) return wrong_type();
      return nlohmann::json(v);
    }
    case ParameterType::kNumber: {
      double v = 0;
      if (!node.IsScalar() || !YAML::convert<double>::decode(node, v) || !std::isfinite(v)) return wrong_type();
      return nlohmann::json(v);
    }
    case ParameterType::kBool: {
      bool v = false;
      if (!node.IsScalar() || !YAML::convert<bool>::decode(node, v)) return wrong_type();
      return nlohmann::json(v);
    }
    case ParameterType::kString:
      if (!node.IsScalar()) return wrong_type();
      return nlohmann::json(node.Scalar());
    case ParameterType::kStringList: {
      if (!node.IsSequence()) return wrong_type();
      std::vector<std::string> items;
      for (const auto& item : node) {
        if (!item.IsScalar()) return wrong_type();
        items.push_back(item.Scalar());
      }
      return nlohmann::json(items);
    }
  }
  return wrong_type();
}

}  // namespace capaboost::harness
