#pragma once
// The paper's reported numbers, kept as data beside the specs (experiments/paper/*.yaml):
//
//   source: "Table 1 (tab:rank)"
//   metric: rank                      # which record metric they correspond to
//   rows:
//     - label: LoRA                   # the spec row they belong beside
//       values: {8: 8, 16: 16}        # column label → number, "63.6±0.2", or {mean: .., std: ..}
//   average: All                      # optional: the column that is each row's mean of its others

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace capaboost::harness {

struct ReportedValue {
  double mean = 0;
  std::optional<double> std;  ///< when the paper gives ±
};

struct PaperNumbers {
  std::string source;
  std::string metric;
  std::map<std::string, std::map<std::string, ReportedValue>> rows;  // row label → column label → value
  std::vector<std::string> row_order;  ///< row labels in file order (for rows the spec does not measure)
  std::string average;  ///< the column printed as each row's mean over its other columns ("All"), or empty
};

/// Loads a paper-numbers file; errors name the file and line.
PaperNumbers load_paper_numbers(const std::string& path);

/// Parses "63.6", "63.6±0.2" or "63.6+-0.2".
std::optional<ReportedValue> parse_reported_value(const std::string& text);

}  // namespace capaboost::harness
