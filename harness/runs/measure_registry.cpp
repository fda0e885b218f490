#include "runs/measure_registry.h"

#include "runs/finetune_measure.h"
#include "runs/rank_measures.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <mutex>
#include <stdexcept>

namespace capaboost::harness {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, MeasureSpec> measures;
  Registry() {
    for (auto& measure : builtin_rank_measures()) measures[measure.name] = measure;
    for (auto& measure : builtin_finetune_measures()) measures[measure.name] = measure;
  }
};

Registry& registry() {
  static Registry instance;
  return instance;
}

}  // namespace

void register_measure(MeasureSpec measure) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.measures.count(measure.name)) throw std::invalid_argument("measure '" + measure.name + "' is already registered");
  r.measures[measure.name] = std::move(measure);
}

const MeasureSpec& find_measure(const std::string& name) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.measures.find(name);
  if (it == r.measures.end()) throw std::invalid_argument("unknown measure '" + name + "'");
  return it->second;
}

std::vector<std::string> measure_names() {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& entry : r.measures) names.push_back(entry.first);
  return names;
}

}  // namespace capaboost::harness
