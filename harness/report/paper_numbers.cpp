#include "report/paper_numbers.h"

#include "spec/diagnostics.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>

namespace capaboost::harness {

std::optional<ReportedValue> parse_reported_value(const std::string& text) {
  ReportedValue value;
  size_t used = 0;
  try {
    value.mean = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string rest = text.substr(used);
  for (const std::string plus_minus : {"±", "+-"}) {
    if (rest.rfind(plus_minus, 0) == 0) {
      try {
        value.std = std::stod(rest.substr(plus_minus.size()));
      } catch (const std::exception&) {
        return std::nullopt;
      }
      return value;
    }
  }
  return rest.find_first_not_of(" ") == std::string::npos ? std::optional<ReportedValue>(value) : std::nullopt;
}

PaperNumbers load_paper_numbers(const std::string& path) {
  std::vector<Diagnostic> problems;
  PaperNumbers numbers;
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    throw SpecError({{path, e.mark.line + 1, e.mark.column + 1, e.msg}});
  }
  auto at = [&](const YAML::Node& node, std::string message) {
    problems.push_back({path, node.Mark().line + 1, node.Mark().column + 1, std::move(message)});
  };
  numbers.source = root["source"] ? root["source"].as<std::string>() : "";
  numbers.metric = root["metric"] ? root["metric"].as<std::string>() : "";
  if (!root["rows"] || !root["rows"].IsSequence()) {
    at(root, "a paper-numbers file needs 'rows': a list of {label, values}");
    throw SpecError(problems);
  }
  for (const auto& row : root["rows"]) {
    if (!row["label"] || !row["values"] || !row["values"].IsMap()) {
      at(row, "each row needs 'label' and 'values' (a mapping of column to number)");
      continue;
    }
    const auto label = row["label"].as<std::string>();
    if (!numbers.rows.count(label)) numbers.row_order.push_back(label);
    auto& values = numbers.rows[label];
    for (const auto& item : row["values"]) {
      const auto column = item.first.as<std::string>();
      if (item.second.IsMap() && item.second["mean"]) {
        ReportedValue value{item.second["mean"].as<double>(), std::nullopt};
        if (item.second["std"]) value.std = item.second["std"].as<double>();
        values[column] = value;
      } else if (auto value = item.second.IsScalar() ? parse_reported_value(item.second.Scalar()) : std::nullopt) {
        values[column] = *value;
      } else {
        at(item.second, fmt::format("value of '{}' must be a number, 'mean±std' or {{mean, std}}", column));
      }
    }
  }
  if (const auto average = root["average"]) {
    numbers.average = average.as<std::string>();
    const bool named = std::any_of(numbers.rows.begin(), numbers.rows.end(),
                                   [&](const auto& row) { return row.second.count(numbers.average) > 0; });
    if (!named) at(average, fmt::format("'average: {}' names a column no row has a value in", numbers.average));
  }
  if (!problems.empty()) throw SpecError(problems);
  return numbers;
}

}  // namespace capaboost::harness
