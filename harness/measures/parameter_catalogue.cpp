#include "measures/parameter_catalogue.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "measures/measure_registry.h"

namespace capaboost::harness {
namespace {

template <typename T>
void append_unique(std::vector<T>& list, const T& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

void add(std::map<std::string, CatalogueEntry>& catalogue, std::set<std::string>& expanded, const ParameterList& list) {
  for (const auto& def : list) {
    auto [it, inserted] = catalogue.try_emplace(def.name, CatalogueEntry{def.type, {}, {}});
    if (!inserted && it->second.type != def.type) {
      throw std::logic_error(fmt::format("parameter '{}' is declared as {} by {} and as {} by {}; give one name one type",
                                         def.name, to_string(it->second.type), fmt::join(it->second.owners, ", "),
                                         to_string(def.type), def.owner));
    }
    append_unique(it->second.docs, def.doc);
    append_unique(it->second.owners, def.owner);
    // A plugin-selecting parameter: every choice's parameters are reachable.
    if (def.selected_parameters && def.choices) {
      for (const auto& choice : def.choices()) {
        if (expanded.insert(def.name + "=" + choice).second) add(catalogue, expanded, def.selected_parameters(choice));
      }
    }
  }
}

std::map<std::string, CatalogueEntry> build() {
  std::map<std::string, CatalogueEntry> catalogue;
  std::set<std::string> expanded;
  for (const auto& name : measure_names()) add(catalogue, expanded, run_parameters(find_measure(name)));
  return catalogue;
}

}  // namespace

const std::map<std::string, CatalogueEntry>& parameter_catalogue() {
  static const std::map<std::string, CatalogueEntry> catalogue = build();
  return catalogue;
}

std::vector<std::string> catalogue_names() {
  std::vector<std::string> names;
  for (const auto& entry : parameter_catalogue()) names.push_back(entry.first);
  return names;
}

}  // namespace capaboost::harness
