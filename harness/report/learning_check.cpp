#include "report/learning_check.h"

#include "params/parameters.h"

#include <algorithm>
#include <map>
#include <optional>

namespace capaboost::harness {
namespace {

// The bound of one run's `metric`: chance level plus the band, or nothing when its measure has none.
std::optional<double> run_bound(const RunConfig& run, const std::string& metric, const RunContext& context) {
  const MeasureSpec& measure = find_measure(run.measure);
  if (!measure.chance_levels) return std::nullopt;
  const nlohmann::json levels = measure.chance_levels(Parameters(run.config), context);
  const auto entry = levels.find(metric);
  if (entry == levels.end()) return std::nullopt;
  return entry->at("level").get<double>() + kChanceBand * entry->at("standard_error").get<double>();
}

}  // namespace

void set_chance_bounds(CellTable& cells, const std::vector<RunConfig>& runs, const std::string& metric, double scale,
                       bool higher_is_better, const RunContext& context) {
  if (!higher_is_better) return;
  std::map<std::string, const RunConfig*> by_key;
  for (const auto& run : runs) by_key.emplace(run.key, &run);
  for (auto& [row, columns] : cells.cells) {
    for (auto& [column, cell] : columns) {
      if (cell.empty()) continue;
      std::optional<double> bound;
      bool every_run = true;
      for (const auto& key : cell.keys) {
        const auto run = by_key.find(key);
        const auto value = run == by_key.end() ? std::nullopt : run_bound(*run->second, metric, context);
        if (!value) {
          every_run = false;
          break;
        }
        bound = std::max(bound.value_or(*value), *value);
      }
      if (every_run && bound) cell.chance_bound = *bound * scale;
    }
  }
}

}  // namespace capaboost::harness
