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

std::string interval(double low, double high, int decimals) {
  return fmt::format("[{:+.{}f}, {:+.{}f}]", low, decimals, high, decimals);
}

std::string interval_95(const PairedDifference& d, int decimals) {
  if (!std::isfinite(d.half_width)) return "n < 2: none";
  return interval(d.mean - d.half_width, d.mean + d.half_width, decimals);
}

// A p-value as a reader compares it with 0.05: three significant digits, "< 0.0001" below that.
std::string p_text(double p) {
  if (p < 1e-4) return "< 0.0001";
  return fmt::format("{:.3g}", p);
}

// The test a claim's columns take: of a difference, or of equivalence within the margin.
std::string test_name(const ComparisonResult& result, int decimals) {
  return result.spec.within ? fmt::format("equivalence ±{:.{}f}", *result.spec.within, decimals) : "difference";
}

// What a reader must know about one line beyond its numbers.
std::string line_note(const ComparisonResult& result, const PairedDifference& d, int decimals) {
  std::vector<std::string> notes;
  if (!d.not_testable.empty()) notes.push_back(d.not_testable + ": not tested");
  if (!d.crossing.empty()) notes.push_back(fmt::format("crosses builds ({})", fmt::join(d.crossing, "; ")));
  if (!d.absent.empty()) {
    // The first few name the runs to look for; a claim with nothing run yet would otherwise list them all.
    constexpr size_t kShown = 4;
    const std::vector<std::string> shown(d.absent.begin(), d.absent.begin() + std::min(d.absent.size(), kShown));
    notes.push_back(fmt::format("missing {}{}", fmt::join(shown, "; "),
                                d.absent.size() > kShown ? fmt::format(" and {} more", d.absent.size() - kShown) : ""));
  }
  if (result.spec.within && std::isfinite(d.half_width_90) && !d.seeds.empty()) {
    notes.push_back(fmt::format("90% interval {}", interval(d.mean - d.half_width_90, d.mean + d.half_width_90, decimals)));
  }
  return fmt::format("{}", fmt::join(notes, "; "));
}

double deciding_p_of(const ComparisonResult& result, const PairedDifference& d) {
  return result.spec.within ? d.tests.p_equivalent : d.tests.p_difference;
}

// "A − B from −0.4 to +1.8 over 5 columns, n = 3": what the verdict rests on, with the columns left
// untested, the margin of an equivalence claim, and the family its p-values were adjusted in.
std::string measurement(const ComparisonResult& result, int decimals, const std::string& column_key) {
  std::vector<double> means;
  std::vector<std::string> untested;
  size_t n_min = SIZE_MAX, n_max = 0;
  for (const auto& d : result.differences) {
    if (d.seeds.empty()) continue;
    if (!d.tested()) {
      untested.push_back(fmt::format("{}: {}", where(d, column_key), d.not_testable));
      continue;
    }
    means.push_back(d.mean);
    n_min = std::min(n_min, d.seeds.size());
    n_max = std::max(n_max, d.seeds.size());
  }
  const std::string left_out = untested.empty() ? "" : fmt::format("; not tested: {}", fmt::join(untested, ", "));
  if (means.empty()) {
    if (!untested.empty()) return fmt::format("no column with both sides learning{}", left_out);
    return result.left_out_by_profile.empty()
               ? "no paired runs yet"
               : fmt::format("a row profile {}'s keep_rows leaves out", result.left_out_by_profile);
  }
  const auto [low, high] = std::minmax_element(means.begin(), means.end());
  const std::string n = n_min == n_max ? fmt::format("n = {}", n_min) : fmt::format("n = {}–{}", n_min, n_max);
  // An equivalence claim is judged against its margin: the reader needs it beside the numbers.
  const std::string margin = result.spec.within
                                 ? fmt::format("; equivalent means the 90% interval lies within ±{:.{}f}", *result.spec.within, decimals)
                                 : "";
  const std::string picked =
      result.spec.chosen_from > 1 ? fmt::format("; A is the best of {} settings on these seeds (p ×{})",
                                                result.spec.chosen_from, result.spec.chosen_from)
                                  : "";
  const std::string family =
      result.family_size > 1 ? fmt::format("; Holm over {} tests{}", result.family_size,
                                           result.spec.family.empty() ? "" : " of family " + result.spec.family)
                             : "";
  const std::string span = means.size() == 1 ? fmt::format("A − B = {:+.{}f}", *low, decimals)
                                             : fmt::format("A − B from {:+.{}f} to {:+.{}f} over {} columns", *low,
                                                           decimals, *high, decimals, means.size());
  return fmt::format("{}, {}{}{}{}{}", span, n, margin, picked, family, left_out);
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
                                        int decimals, const ClaimsContext& context) {
  if (results.empty()) return "";
  // A row in italics: the two rows' means over the columns (report/average_column.h).
  const bool averages = std::any_of(results.begin(), results.end(), [](const auto& r) { return r.average.has_value(); });
  std::string out = fmt::format(
      "\n## Paired differences\n\nA − B over the seeds both were run with (same data order, same masks), with a 95% "
      "Student-t interval ({}). p: the test's p-value; adjusted: after Holm's adjustment over the claim's columns (or "
      "its family) and any selection; a column decides at adjusted p < 0.05.",
      t_multiplier_note(results));
  const bool crossing = std::any_of(results.begin(), results.end(), [](const auto& r) {
    return std::any_of(r.differences.begin(), r.differences.end(), [](const auto& d) { return !d.crossing.empty(); });
  });
  if (crossing) {
    out += " A note \"crosses builds\" names the two builds of each pair that mixes them: \"numerics F\", a numerics "
           "fingerprint; \"C clean\", a clean commit before fingerprints; \"C dirty, sweep S\" or \"C dirty, run K\", "
           "uncommitted changes shared by one sweep's runs or known to one run only.";
  }
  if (averages) {
    out += " A row in italics compares the two rows' means over the columns (the paper's average column): it "
           "restates the columns, so no verdict counts it.";
  }
  out += "\n\n| A | B | where | n | A − B | 95% interval | test | p | adjusted p | note |\n"
         "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& result : results) {
    const auto line = [&](const PairedDifference& d, bool average) {
      const std::string place = average ? "*" + where(d, column_key) + "*" : where(d, column_key);
      const bool has_p = !average && d.tested() && d.seeds.size() >= 2;
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", result.spec.a.row, result.spec.b.row,
                         place, d.seeds.size(), d.seeds.empty() ? "–" : fmt::format("{:+.{}f}", d.mean, decimals),
                         d.seeds.empty() ? "–" : interval_95(d, decimals), average ? "–" : test_name(result, decimals),
                         has_p ? p_text(deciding_p_of(result, d)) : "–", has_p ? p_text(d.p_adjusted) : "–",
                         line_note(result, d, decimals));
    };
    for (const auto& d : result.differences) line(d, false);
    if (result.average) line(*result.average, true);
  }
  out += "\n## Claims\n\n| Claim | A | B | Our measurement | Verdict |\n|---|---|---|---|---|\n";
  for (const auto& result : results) {
    out += fmt::format("| {} | {} | {} | {} | {} |\n", result.spec.claim, side_text(result.spec.a, column_key),
                       side_text(result.spec.b, column_key), measurement(result, decimals, column_key),
                       result.verdict_text());
  }
  if (!context.regime.empty()) out += "\n" + context.regime + "\n";
  if (context.allow_cross_build) {
    out += "\nThis spec allows pairs of runs from two builds (`report.allow_cross_build: true`): their verdicts count, "
           "and each such line says which builds it pairs.\n";
  }
  return out;
}

// Intervals and p-values go through libm's lgamma, exp and log (report/significance.cpp), whose last bit
// may differ between CPUs' code paths: ten significant digits keep a rebuilt comparisons.csv equal to the
// committed one (`capaboost verify`) and say more than any reader needs.
std::string render_comparisons_csv(const std::vector<ComparisonResult>& results) {
  std::string out = "claim,a,b,column_a,column_b,n,mean,ci_low,ci_high,test,p,p_adjusted,note,seeds,verdict\n";
  for (const auto& result : results) {
    const auto line = [&](const PairedDifference& d, bool average) {
      const bool bounded = std::isfinite(d.half_width) && !d.seeds.empty();
      const bool has_p = !average && d.tested() && d.seeds.size() >= 2;
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(result.spec.claim),
                         csv_field(result.spec.a.row), csv_field(result.spec.b.row), csv_field(d.column_a),
                         csv_field(d.column_b), d.seeds.size(), d.seeds.empty() ? "" : fmt::format("{}", d.mean),
                         bounded ? fmt::format("{:.10g}", d.mean - d.half_width) : "",
                         bounded ? fmt::format("{:.10g}", d.mean + d.half_width) : "",
                         average ? "" : csv_field(test_name(result, 6)),
                         has_p ? fmt::format("{:.10g}", deciding_p_of(result, d)) : "",
                         has_p ? fmt::format("{:.10g}", d.p_adjusted) : "", csv_field(line_note(result, d, 6)),
                         fmt::join(d.seeds, " "), csv_field(result.verdict_text()));
    };
    for (const auto& d : result.differences) line(d, false);
    if (result.average) line(*result.average, true);
  }
  return out;
}

}  // namespace capaboost::harness
