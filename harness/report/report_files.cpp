#include "report/report_files.h"

#include "plan/expansion.h"
#include "report/aggregate.h"
#include "report/average_column.h"
#include "report/comparison_writer.h"
#include "report/curves_figure.h"
#include "report/figure_writer.h"
#include "report/learning_check.h"
#include "report/regime.h"
#include "report/table_writer.h"
#include "util/path_name.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>

namespace capaboost::harness {
namespace {

namespace fs = std::filesystem;

// The values the spec's paper-scale runs give the column parameter that this profile's runs do not
// (MNLI, QQP and QNLI on mini): a table shows them as not run instead of dropping them.
std::vector<std::string> absent_columns(const Spec& spec, const std::string& profile, const std::string& column_key,
                                        const std::vector<std::string>& present) {
  std::vector<std::string> absent;
  if (column_key.empty() || profile == "paper") return absent;
  for (const auto& draft : expand_spec(spec, "paper")) {
    if (!draft.given.contains(column_key)) continue;
    const std::string column = value_label(draft.given.at(column_key));
    if (std::find(present.begin(), present.end(), column) == present.end() &&
        std::find(absent.begin(), absent.end(), column) == absent.end()) {
      absent.push_back(column);
    }
  }
  return absent;
}



// Whether the profile runs row `label`: a group average's row (report.table.group_average) when it runs
// every row of the group.
bool runs_on_profile(const Spec& spec, const std::string& profile, const std::string& label) {
  if (spec.table) {
    for (const auto& group : spec.table->group_average) {
      if (spec.table->group_row(group) != label) continue;
      return std::all_of(group.rows.begin(), group.rows.end(),
                         [&](const std::string& row) { return profile_runs_row(spec, profile, row); });
    }
  }
  return profile_runs_row(spec, profile, label);
}

void write_text(const fs::path& path, const std::string& text, bool quiet) {
  std::ofstream out(path);
  out << text;
  if (!out) throw std::runtime_error(fmt::format("{}: cannot write", path.string()));
  if (!quiet) fmt::print("wrote {}\n", path.string());
}

// Whether a verdict is a test's outcome (and so holds in the report's regime), not a reason for having none.
bool is_tested_verdict(const std::string& verdict) {
  for (const char* reason : {"not measured", "not run on profile", "not testable", "crosses builds"}) {
    if (verdict.rfind(reason, 0) == 0) return false;
  }
  return true;
}

// Every table, claimed comparison and figure of `spec` over `runs`, written to `out`. `part` names the
// share of the runs a split report covers ("target=flat"), or is empty. `context` gives the data root
// the tasks' chance levels are read from. Returns the number of cells' missing or failed runs.
int write_report(const Spec& spec, const std::vector<RunConfig>& runs, const RecordStore& store,
                 const std::vector<PaperNumbers>& papers, const std::string& profile, const std::string& plots_dir,
                 const std::string& out, const std::string& part, const RunContext& context, bool quiet) {
  fs::create_directories(out);
  const std::string& spec_title = spec.title.empty() ? spec.name : spec.title;
  const std::string title = spec_title + (part.empty() ? "" : fmt::format(" ({})", part));
  int incomplete = 0;
  std::vector<ComparisonResult> comparisons;
  std::vector<TableDocument> documents;
  std::vector<size_t> first_comparison;  // per document, where its claims start in `comparisons`
  const auto overlay = spec.profiles.find(profile);
  const std::string caption = overlay == spec.profiles.end() ? "" : overlay->second.caption;
  if (spec.table) {
    const auto& layout = *spec.table;
    for (const auto& metric : layout.metrics) {
      TableDocument document;
      document.spec_name = spec.name;
      document.title = title;
      document.profile = profile;
      document.metric = metric;
      document.column_key = layout.columns;
      document.caption = caption;
      document.decimals = layout.decimals_of(metric);
      document.higher_is_better = layout.higher_is_better;
      document.cells = aggregate(runs, store, metric, layout.rows, layout.columns);
      document.absent_columns = absent_columns(spec, profile, layout.columns, document.cells.columns);
      if (layout.scale != 1) {
        for (auto& [row, columns] : document.cells.cells) {
          for (auto& [column, cell] : columns) {
            for (double& value : cell.values) value *= layout.scale;
          }
        }
        const std::string scaled = fmt::format("values ×{:g}, as the paper prints them", layout.scale);
        document.caption = document.caption.empty() ? scaled : scaled + ". " + document.caption;
      }
      // Rows at their task's chance level on every seed: marked, and left out of the claims.
      set_chance_bounds(document.cells, runs, metric, layout.scale, layout.higher_is_better, context);
      // The paper's numbers for this metric: the file that names it, or one that names none.
      for (const auto& paper : papers) {
        if (paper.metric.empty() || paper.metric == metric) {
          document.paper = paper;
          break;
        }
      }
      move_unreported_absent_columns(document);
      // The paper's average column (its "All"), when its numbers name one: after the scaling, before the claims.
      const std::string average_column = add_average_column(document);
      // The paper's averages over groups of rows (Table 4's per-method "Avg"), after the row averages.
      add_group_averages(document, layout);
      // Budget columns: each row's mean over all its runs, beside the paper's budget file.
      for (const auto& column : layout.budget) {
        document.budget_titles.push_back(column.title);
        const BudgetValues values = budget_values(runs, store, column, layout.rows);
        for (const auto& [row, value] : values.by_row) document.budget[row][column.title] = value;
        if (!values.problem.empty()) {
          document.caption = document.caption.empty() ? values.problem : document.caption + ". " + values.problem;
        }
      }
      for (const auto& paper : papers) {
        if (paper.metric == "budget") document.paper_budget = paper;
      }
      for (const auto& [row, columns] : document.cells.cells) {
        for (const auto& [column, cell] : columns) {
          // The averages restate their rows' missing runs.
          if (column != average_column && column != layout.group_average_title) incomplete += cell.missing + cell.failed;
        }
      }
      // The spec's claims on this metric, as paired differences: the Markdown report ends with them.
      first_comparison.push_back(comparisons.size());
      std::optional<CellTable> eval_cells;  // what `at: chosen_on_eval` picks each side's column by
      for (const auto& comparison : spec.comparisons) {
        if ((comparison.metric.empty() ? layout.metrics.front() : comparison.metric) != metric) continue;
        if (comparison.at_chosen_on_eval && !eval_cells) {
          eval_cells = aggregate(runs, store, "eval_score", layout.rows, layout.columns);
        }
        const ComparisonLayout resolved =
            comparison.at_chosen_on_eval ? with_columns_chosen_on(comparison, *eval_cells) : comparison;
        comparisons.push_back(compare(resolved, document.cells, layout.higher_is_better, average_column));
        // A row the profile's keep_rows leaves out was not run on purpose: say so, not "not measured".
        if (!runs_on_profile(spec, profile, comparison.a.row) || !runs_on_profile(spec, profile, comparison.b.row)) {
          comparisons.back().left_out_by_profile = profile;
          comparisons.back().verdict = fmt::format("not run on profile {}", profile);
        }
      }
      documents.push_back(std::move(document));
    }
  }
  // Verdicts over every claim at once: a family may span the tables of several metrics.
  decide_verdicts(comparisons, spec.allow_cross_build);
  const Regime regime = describe_regime(spec, runs, profile);
  for (auto& comparison : comparisons) {
    if (is_tested_verdict(comparison.verdict)) comparison.regime = regime.verdict_suffix;
  }
  for (size_t i = 0; i < documents.size(); ++i) {
    const auto& document = documents[i];
    const size_t end = i + 1 < documents.size() ? first_comparison[i + 1] : comparisons.size();
    const std::vector<ComparisonResult> measured(comparisons.begin() + static_cast<std::ptrdiff_t>(first_comparison[i]),
                                                 comparisons.begin() + static_cast<std::ptrdiff_t>(end));
    const std::string markdown =
        render_markdown(document) + render_comparisons_markdown(measured, document.column_key, document.decimals,
                                                                ClaimsContext{regime.line, spec.allow_cross_build});
    const std::string stem = documents.size() == 1 ? "table" : "table_" + document.metric;
    write_text(fs::path(out) / (stem + ".tex"), render_latex(document), quiet);
    write_text(fs::path(out) / (stem + ".csv"), render_csv(document), quiet);
    write_text(fs::path(out) / (stem + ".md"), markdown, quiet);
    if (!quiet) fmt::print("\n{}\n", markdown);
  }
  if (!comparisons.empty()) write_text(fs::path(out) / "comparisons.csv", render_comparisons_csv(comparisons), quiet);
  for (const auto& layout : spec.figures) {
    // x a parameter (one point per value), x_metric averaged over `over` (one point per series), or
    // both: one point per value of x, placed at x_metric's mean (a curve against parameters spent).
    const std::string& columns = layout.x.empty() ? layout.over : layout.x;
    const auto cells = aggregate(runs, store, layout.metric, layout.series, columns);
    const auto series =
        layout.x_metric.empty()
            ? points_by_parameter(cells, layout.log_base_x != 0)
        : layout.x.empty()
            ? points_by_metric(aggregate(runs, store, layout.x_metric, layout.series, columns), cells)
            : points_along_metric(aggregate(runs, store, layout.x_metric, layout.series, columns), cells);
    // The picture travels alone: its title says what the bars are and which profile made it.
    // The split's part and the caption get lines of their own, broken at 100 characters: gnuplot does
    // not wrap a title line, and at 0.8 size about 125 characters fill the narrowest (800 px) picture.
    const auto small_lines = [](const std::string& text) {
      std::string lines;
      for (const auto& line : wrap_words(text, 100)) lines += "\\n{/*0.8 " + gnuplot_literal(line) + "}";
      return lines;
    };
    const std::string figure_title =
        fmt::format("{}{}\\n{{/*0.8 profile {}: mean ± std over {}}}{}", gnuplot_literal(spec_title),
                    small_lines(part), profile, seed_phrase(cells), small_lines(caption));
    for (const auto& file : write_figure(layout, series, figure_title, plots_dir, out)) {
      if (!quiet) fmt::print("wrote {}\n", file);
    }
  }
  if (spec.table) {
    for (const auto& file : write_curves_figures({*spec.table, runs, store, profile, plots_dir, out, title})) {
      if (!quiet) fmt::print("wrote {}\n", file);
    }
  }
  return incomplete;
}

// A value as a folder name: characters a path or a Markdown link would misread (':' starts a URL
// scheme, '/' a folder) become '-'.
std::string folder_name(const std::string& value) {
  std::string name = value;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-' && c != '=') c = '-';
  }
  return name;
}

// The runs of each value of `parameter`, in the order the plan first meets them.
std::vector<std::pair<std::string, std::vector<RunConfig>>> split_runs(const std::vector<RunConfig>& runs,
                                                                         const std::string& parameter) {
  std::vector<std::pair<std::string, std::vector<RunConfig>>> parts;
  for (const auto& run : runs) {
    if (!run.config.contains(parameter)) {
      throw std::runtime_error(fmt::format("report.split: run '{}' has no parameter '{}' to split the report by",
                                           run.label, parameter));
    }
    const std::string value = value_label(run.config.at(parameter));
    auto part = std::find_if(parts.begin(), parts.end(), [&](const auto& p) { return p.first == value; });
    if (part == parts.end()) part = parts.insert(parts.end(), {value, {}});
    part->second.push_back(run);
  }
  return parts;
}

}  // namespace

int write_report_files(const ReportInputs& inputs, const std::string& out) {
  const Spec& spec = inputs.spec;
  std::vector<PaperNumbers> papers;
  for (const auto& file : spec.paper) papers.push_back(load_paper_numbers(file));
  if (spec.report_split.empty()) {
    return write_report(spec, inputs.runs, inputs.store, papers, inputs.profile, inputs.plots_dir, out, "",
                        inputs.context, inputs.quiet);
  }
  // One report per value, each in its own folder (out/<value>/), as if the spec had only those runs.
  int incomplete = 0;
  for (const auto& [value, runs] : split_runs(inputs.runs, spec.report_split)) {
    // A value is any parameter value ("..", a path): as a folder it must stay one level below `out`.
    const std::string folder = folder_name(value);
    if (const auto problem = path_name_problem(folder)) {
      throw std::runtime_error(fmt::format("{}: report.split '{}': the value '{}' cannot name a report folder: it {}; "
                                           "split by a parameter whose values are names ({})",
                                           spec.file, spec.report_split, printable_name(value), *problem,
                                           path_name_rule()));
    }
    incomplete += write_report(spec, runs, inputs.store, papers, inputs.profile, inputs.plots_dir,
                               (fs::path(out) / folder).string(),
                               fmt::format("{}={}", spec.report_split, value), inputs.context, inputs.quiet);
  }
  return incomplete;
}

}  // namespace capaboost::harness
