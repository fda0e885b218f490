#include "measures/parameter_catalogue.h"

#include "measures/measure_registry.h"

#include <catch2/catch.hpp>

using namespace capaboost::harness;

TEST_CASE("the catalogue gathers every measure's, method's and task's parameters, one type per name",
          "[harness][measures]") {
  // Building it throws when two plugins give one name two types.
  const auto& catalogue = parameter_catalogue();
  for (const char* name : {"seed", "model", "method", "task", "lr", "rank", "alpha", "branches", "density", "mask",
                           "mask_seed", "bottleneck", "protocol", "split_seed", "max_length", "dim", "trials"}) {
    INFO(name);
    CHECK(catalogue.count(name) == 1);
  }
  // `rank` is LoRA's rank and Theorem 1's matrix rank: one name, one type, both docs.
  CHECK(catalogue.at("rank").type == capaboost::ParameterType::kInt);
  CHECK(catalogue.at("rank").owners.size() >= 2);
  CHECK(catalogue.at("density").owners == std::vector<std::string>{"CapaBoost"});
  // Every measure takes the run seed, declared once.
  for (const auto& name : measure_names()) CHECK(run_parameters(find_measure(name)).front().name == "seed");
}
