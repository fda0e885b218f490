#pragma once
// Test helper for the tokenizer parity tests: reading the integer lists the oracle scripts write as
// strings of space-separated integers (tests/oracle/tokenizer_reference.py: a few hundred thousand
// tokens parse far faster so), and showing ids in a failure message, from where two lists part.

#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace capaboost::testing {

/// The integers of an oracle list field, e.g. "1 19556 905".
inline std::vector<int64_t> oracle_integers(const nlohmann::json& field) {
  const std::string& text = field.get_ref<const std::string&>();
  std::vector<int64_t> values;
  const char* at = text.c_str();
  for (char* end = nullptr;; at = end) {
    const long long value = std::strtoll(at, &end, 10);
    if (end == at) break;
    values.push_back(value);
  }
  return values;
}

/// 60 ids from index `from`, space-separated ("…" where some are left out).
inline std::string show_ids(const std::vector<int64_t>& values, std::size_t from = 0) {
  std::ostringstream out;
  if (from > 0) out << "[" << from << "] … ";
  for (std::size_t i = from; i < values.size() && i < from + 60; ++i) out << (i > from ? " " : "") << values[i];
  if (values.size() > from + 60) out << " …";
  return out.str();
}

/// The first index where `a` and `b` differ (the shorter one's size when one is a prefix of the other).
inline std::size_t first_difference(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  return i;
}

}  // namespace capaboost::testing
