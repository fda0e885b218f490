#pragma once
// Paths of the test fixtures under tests/fixtures.

#include <string>

namespace capaboost::harness::testing {

inline std::string fixture(const std::string& relative) {
  return std::string(CAPABOOST_SOURCE_DIR) + "/tests/fixtures/" + relative;
}

}  // namespace capaboost::harness::testing
