#include "report/comparison_writer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace capaboost::harness {
namespace {

std::string side_text(const ComparisonSide& side, const std::string& column_key) {
  return side.column.empty() ? side.row : fmt::format("{} at {}", side.row, column_title(column_key, side.column));
}

std::string where(const PairedDifference& d, const std::string& column_key) {
  return d.column_a == d.column_b ? column_title(column_key, d.column_a)
                                  : fmt::format("{} vs {}", column_title(column_key, d.column_a), column_title(column_key, d.column_b));
}

std::string interval(const PairedDifference& d, int decimals) {
  if (!std::isfinite(d.half_width)) return "n < 2: none";
  return fmt::format("[{:+.{}f}, {:+.{}f}]", d.mean - d.half_width, decimals, d.mean + d.half_width, decimals);
}

// "A − B from −0.4 to +1.8 over 5 column(s), n = 3": what the verdict rests on (and the margin of a
// claim that A and B perform alike).
std::string measurement(const ComparisonResult& result, int decimals) {
  std::vector<double> means;
  size_t n_min = SIZE_MAX, n_max = 0;
  for (const auto& d : result.differences) {
    if (d.seeds.empty()) continue;
    means.push_back(d.mean);
    n_min = std::min(n_min, d.seeds.size());
    n_max = std::max(n_max, d.seeds.size());
  }
  if (means.empty()) {
    return result.left_out_by_profile.empty()
               ? "no paired runs yet"
               : fmt::format("a row profile {}'s keep_rows leaves out", result.left_out_by_profile);
  }
  const auto [low, high] = std::minmax_element(means.begin(), means.end());
  const std::string n = n_min == n_max ? fmt::format("n = {}", n_min) : fmt::format("n = {}–{}", n_min, n_max);
  // A claim that A and B perform alike is judged against its margin: the reader needs it beside the numbers.
  const std::string margin =
      result.spec.within ? fmt::format("; alike means the interval lies within ±{:.{}f}", *result.spec.within, decimals) : "";
  if (means.size() == 1) return fmt::format("A − B = {:+.{}f}, {}{}", *low, decimals, n, margin);
  return fmt::format("A − B from {:+.{}f} to {:+.{}f} over {} columns, {}{}", *low, decimals, *high, decimals,
                     means.size(), n, margin);
}

// The t multiplier the intervals below use, for the most seeds any line pairs ("t = 4.30 at n = 3"); a
// first look at one seed (`make run --seeds 42`) has no interval yet, and says so.
std::string t_multiplier_note(const std::vector<ComparisonResult>& results) {
  size_t most = 0;
  for (const auto& result : results) {
    for (const auto& d : result.differences) most = std::max(most, d.seeds.size());
    if (result.average) most = std::max(most, result.average->seeds.size());
  }
  if (most < 2) return "one seed so far: no interval until a second seed is run";
  return fmt::format("wide for few seeds: t = {:.2f} at n = {}", t_quantile_975(static_cast<int>(most) - 1), most);
}

}  // namespace

std::string render_comparisons_markdown(const std::vector<ComparisonResult>& results, const std::string& column_key,
                                        int decimals) {
  if (results.empty()) return "";
  // A row in italics: the two rows' means over the columns (report/average_column.h).
  const bool averages = std::any_of(results.begin(), results.end(), [](const auto& r) { return r.average.has_value(); });
  std::string out = fmt::format(
      "\n## Paired differences\n\nA − B over the seeds both were run with (same data order, same masks), with a 95% "
      "Student-t interval ({}); an interval that excludes 0 is a gap beyond seed noise.",
      t_multiplier_note(results));
  if (averages) {
    out += " A row in italics compares the two rows' means over the columns (the paper's average column): it "
           "restates the columns, so no verdict counts it.";
  }
  out += "\n\n| A | B | where | n | A − B | 95% interval |\n|---|---|---|---|---|---|\n";
  for (const auto& result : results) {
    const auto line = [&](const PairedDifference& d, bool average) {
      const std::string place = average ? "*" + where(d, column_key) + "*" : where(d, column_key);
      out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", result.spec.a.row, result.spec.b.row, place, d.seeds.size(),
                         d.seeds.empty() ? "–" : fmt::format("{:+.{}f}", d.mean, decimals),
                         d.seeds.empty() ? "–" : interval(d, decimals));
    };
    for (const auto& d : result.differences) line(d, false);
    if (result.average) line(*result.average, true);
  }
  out += "\n## Claims\n\n| Claim | A | B | Our measurement | Verdict |\n|---|---|---|---|---|\n";
  for (const auto& result : results) {
    out += fmt::format("| {} | {} | {} | {} | {} |\n", result.spec.claim, side_text(result.spec.a, column_key),
                       side_text(result.spec.b, column_key), measurement(result, decimals), result.verdict);
  }
  return out;
}

std::string render_comparisons_csv(const std::vector<ComparisonResult>& results) {
  std::string out = "claim,a,b,column_a,column_b,n,mean,ci_low,ci_high,seeds,verdict\n";
  for (const auto& result : results) {
    std::vector<PairedDifference> lines = result.differences;
    if (result.average) lines.push_back(*result.average);
    for (const auto& d : lines) {
      const bool bounded = std::isfinite(d.half_width) && !d.seeds.empty();
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(result.spec.claim), csv_field(result.spec.a.row),
                         csv_field(result.spec.b.row), csv_field(d.column_a), csv_field(d.column_b), d.seeds.size(),
                         d.seeds.empty() ? "" : fmt::format("{}", d.mean),
                         bounded ? fmt::format("{}", d.mean - d.half_width) : "",
                         bounded ? fmt::format("{}", d.mean + d.half_width) : "", fmt::join(d.seeds, " "),
                         csv_field(result.verdict));
    }
  }
  return out;
}

}  // namespace capaboost::harness
