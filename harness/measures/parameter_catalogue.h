#pragma once
// Every parameter name a spec may use, gathered from the registries: each measure's parameters and,
// through the plugins their values can select, every method's and every task's. The spec reader
// types YAML values with it and suggests names for typos; which parameters apply to a given run is
// decided later, when the run is resolved (plan/plan.h).

#include <map>
#include <string>
#include <vector>

#include "params/parameter.h"

namespace capaboost::harness {

struct CatalogueEntry {
  ParameterType type = ParameterType::kString;
  std::vector<std::string> docs;    ///< distinct one-line docs of its definitions
  std::vector<std::string> owners;  ///< who declares it ("method lora", "measure finetune", …)
};

/// Built once. A name declared with two different types is a programming error (thrown here, and
/// caught by the test suite): a name means one type everywhere.
const std::map<std::string, CatalogueEntry>& parameter_catalogue();

/// The catalogue's names, sorted (for did-you-mean).
std::vector<std::string> catalogue_names();

}  // namespace capaboost::harness
