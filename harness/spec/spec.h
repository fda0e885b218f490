#pragma once
// An experiment spec: one YAML file per paper table or figure, written at paper scale.
//
//   name: table1_rank                 # identifies the spec's runs and outputs
//   title: Rank of the weight update  # caption text
//   measure: rank                     # what one run computes (see `capaboost measures`)
//   paper: paper/table1_rank.yaml     # the paper's reported numbers, relative to this file
//   defaults: {method: lora, ...}     # run parameters shared by every row (each run keeps those that apply to it)
//   rows:                             # one table row each: a label plus parameter deltas
//     - {label: LoRA, branches: 1}
//     - {label: LoRA (random factors), measure: rank}   # a row may name its own measure
//   grid: {rank: [8, 16, 32, 64]}     # axes expanded as a cartesian product
//   zip: {rank: [8, 16], alpha: [12, 24]}  # axes expanded together, element by element
//   seeds: [42, 43, 44]               # an axis of its own; tables show mean ± std over it
//   lr_grid: [1e-4, 3e-4]             # learning rates; reports keep the best on eval per cell
//   profiles: {mini: {set: {...}, seeds: [42], grid: {...}, zip: {...}}}  # overlays on experiments/profiles.yaml
//   profiles: {smoke: {replace: {model: {mini: smoke}}}}  # swap one value of a parameter, keep the rest
//   report: {table: {rows: label, columns: rank, metric: rank, decimals: 0},
//            comparisons: [{claim: "…", a: Diff-mask, b: Same-mask}]}   # paired differences, a claims table
//
// Loading checks the structure and every parameter name and type (against the parameters the
// registered measures, methods and tasks declare), reporting all problems at once with file:line and
// did-you-mean. Whether each run's values are valid and complete is checked when the runs are
// planned (plan/plan.h), still before anything runs.

#include "spec/diagnostics.h"

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace capaboost::harness {

/// Where each parameter of a mapping was written.
using ParameterMarks = std::map<std::string, SourceMark>;

/// One swept parameter and its values.
struct Axis {
  std::string name;
  std::vector<nlohmann::json> values;
  SourceMark mark;
};
using Axes = std::vector<Axis>;

/// A row's value of `parameter` for the runs where the swept parameter `axis` equals `when`
/// (`per: {task: {epochs: {CoLA: 20, SST-2: 10}}}`: the adapter rows' own epochs per task).
struct PerValue {
  std::string axis;
  nlohmann::json when;
  std::string parameter;
  nlohmann::json value;
  SourceMark mark;
};

struct RowSpec {
  std::string label;
  /// The row's own measure, when it differs from the spec's (e.g. Table 1's random-factor rows beside
  /// its trained ones); empty: the spec's measure.
  std::string measure;
  nlohmann::json parameters = nlohmann::json::object();
  ParameterMarks marks;
  /// Applied after the sweeps (so they replace what a zip gives this row) and before the profile.
  std::vector<PerValue> per;
  /// The row's own learning-rate grid, replacing the spec's for this row (a baseline run with its
  /// paper's published rate); a profile's lr_grid still replaces both.
  std::optional<std::vector<double>> lr_grid;
  SourceMark lr_grid_mark;
  SourceMark where;  ///< the row itself
};

/// What a profile changes: parameters set on every run (last, so they win), and replacements for
/// the seeds, learning-rate grid and grid axes.
struct ProfileOverlay {
  nlohmann::json set = nlohmann::json::object();
  ParameterMarks set_marks;
  std::optional<std::vector<int64_t>> seeds;
  SourceMark seeds_mark;
  std::optional<std::vector<double>> lr_grid;
  SourceMark lr_grid_mark;
  /// row label → its learning-rate grid under this profile (`row_lr_grid:`), over lr_grid: methods whose
  /// rates differ by orders of magnitude (full fine-tuning, LoRA) each get theirs.
  std::map<std::string, std::vector<double>> row_lr_grids;
  std::map<std::string, SourceMark> row_lr_grid_marks;
  /// The labels of the only rows this profile runs (`keep_rows:`), when a budget cannot hold them all
  /// (Table 4 on two cores keeps the rows its claims compare); unset runs every row. A claim naming a row
  /// left out reads "not run on profile …".
  std::optional<std::vector<std::string>> keep_rows;
  SourceMark keep_rows_mark;
  Axes grid;  ///< axes named here replace the spec's axes of the same name
  std::optional<Axes> zip;  ///< replaces the spec's zip axes as a whole (e.g. fewer tasks)
  /// parameter → [[from, to], …]: a run whose parameter equals `from` gets `to` instead, before `set`
  /// (e.g. smoke runs the smoke encoder wherever a row names mini, and smoke-random for mini-random).
  nlohmann::json replace = nlohmann::json::object();
  ParameterMarks replace_marks;
  /// What a reader of this profile's tables and figures must know (e.g. that the mini encoder's width
  /// caps a rank): appended to the LaTeX caption and the Markdown heading.
  std::string caption;
};

/// One budget column of a table (`report.table.budget`).
struct BudgetColumn {
  std::string metric;  ///< the record metric, averaged over each row's runs
  std::string title;   ///< the column's title, also its column in the paper's budget file (`metric: budget`)
  /// A row whose mean divides every row's, for factors such as "FLOPs vs LoRA"; empty: shown as recorded.
  std::string relative_to;
};

struct TableLayout {
  std::string rows = "label";  ///< row key: "label" or a parameter name
  std::string columns;         ///< parameter whose values form the columns ("" = one column per metric)
  std::vector<std::string> metrics;  ///< record metrics shown; one column each when `columns` is empty
  int decimals = 1;
  std::map<std::string, int> metric_decimals;  ///< per-metric overrides (`decimals: {rank: 0, …}`)
  int decimals_of(const std::string& metric) const {
    auto it = metric_decimals.find(metric);
    return it == metric_decimals.end() ? decimals : it->second;
  }
  bool higher_is_better = true;  ///< for bolding the best entry per column
  /// Recorded values are multiplied by this before they are shown and compared (`scale: 100` shows
  /// fractions such as test_f1 as the percentages the paper prints).
  double scale = 1;
  /// Budget columns after the method name, one value per row over all its runs, in declaration order:
  /// `budget: {fine_tuned_percent: FT params %, tuner_flops_per_token: {title: FLOPs vs LoRA, relative_to: LoRA}}`.
  std::vector<BudgetColumn> budget;
  /// `group_average: {title: Avg, groups: {LoRA: [LoRA 0.08%, …], …}}`: the paper's average over several
  /// rows (Table 4's "Avg": a method's mean over its budgets and tasks). Each group gets a row
  /// "<group> (<title>)" with one column <title>: the mean over the group's rows and the table's columns,
  /// seed by seed (report/average_column.h). A claim may name the row (`a: {row: "LoRA (Avg)", column: Avg}`).
  struct RowGroup {
    std::string name;
    std::vector<std::string> rows;
  };
  std::string group_average_title;
  std::vector<RowGroup> group_average;
  /// The row label of `group`'s average: "LoRA (Avg)".
  std::string group_row(const RowGroup& group) const { return group.name + " (" + group_average_title + ")"; }
};

/// One figure of a report (`report.figure`: one map, or a list of them for several panels).
struct FigureLayout {
  std::string x;         ///< parameter on the x axis (one point per value)
  /// A record metric on the x axis instead (Figure 1: % trainable parameters): one point per series,
  /// its x the metric's mean; with `over`, both coordinates averaged over that parameter's values
  /// seed by seed (a GLUE average over `task`). With `x` as well: one point per value of x, placed at
  /// the metric's mean there (a residual against the parameters each rank spends).
  std::string x_metric;
  std::string over;
  std::string series;  ///< "label" or a parameter: one line each
  std::string metric;  ///< record metric on the y axis
  std::string template_name;  ///< plots/<template>.gp
  std::string xlabel, ylabel;
  int log_base_x = 0;  ///< 0: linear x; else a log axis of this base (`logscale_x: true` is 2, or a base)
  std::string file = "figure";  ///< file stem: "figure", or "figure_<metric>" in a list of several
};

/// One side of a claimed comparison: a row, at every column (column empty) or at one column.
struct ComparisonSide {
  std::string row;
  std::string column;
};

/// A claim of the paper to measure as a paired difference (report/paired_comparison.h).
struct ComparisonLayout {
  std::string claim;  ///< the paper's words, with where it says them
  ComparisonSide a;   ///< the side the claim says is better
  ComparisonSide b;
  std::string metric;  ///< empty: the table's first metric
  /// For a claim "A and B perform alike": the margin (in the metric's units) that a 95% interval
  /// must lie within, on both sides of 0. Empty: the claim is "A beats B".
  std::optional<double> within;
  /// `at: chosen_on_eval`: each side is read at its own column, the one where its mean eval score is
  /// highest (a table whose columns are learning rates: each row at the rate a reader would pick).
  bool at_chosen_on_eval = false;
  /// `family: name`: claims of one family are adjusted for multiplicity together (Holm, over all their
  /// columns); empty: the claim is a family of its own (its columns).
  std::string family;
  /// `chosen_from: N`: A was picked as the best of N settings on these same seeds, so each p-value is
  /// multiplied by N (Bonferroni for the selection) before Holm's adjustment. 1: nothing was picked.
  int chosen_from = 1;
};

/// Where a report names a record metric (a table's metrics and budget, a figure's metric or x_metric):
/// checked when the spec is planned against the metrics its measures declare (MeasureSpec::metrics).
struct MetricReference {
  std::string metric;
  std::string where;  ///< the field, e.g. "report.table.metrics"
  SourceMark mark;
};

struct Spec {
  std::string file;  ///< path it was loaded from
  std::string name;
  std::string title;
  std::string measure;
  /// Resolved paths of the paper-numbers files, one per reported metric (a table of EM and F1 has two).
  std::vector<std::string> paper;
  nlohmann::json defaults = nlohmann::json::object();
  ParameterMarks default_marks;
  std::vector<RowSpec> rows;
  Axes grid;
  Axes zip;
  std::vector<int64_t> seeds;  ///< empty: one run at the seed parameter's default
  SourceMark seeds_mark;
  std::vector<double> lr_grid;  ///< empty: no learning-rate axis
  SourceMark lr_grid_mark;
  std::map<std::string, ProfileOverlay> profiles;
  /// The profiles the spec's own `profiles:` names (an opt-in profile runs only for these).
  std::set<std::string> own_profiles;
  std::optional<TableLayout> table;
  std::vector<FigureLayout> figures;
  std::vector<ComparisonLayout> comparisons;
  /// Every record metric the report names, with where (checked by load_checked_spec, plan/plan.h).
  std::vector<MetricReference> metric_references;
  /// `report.split: target`: one report (tables, claims, figures) per value of this parameter, each in
  /// its own folder, as if the spec had only those runs; empty: one report.
  std::string report_split;
  /// `report.allow_cross_build: true`: pairs of runs from two builds still get verdicts (said in the
  /// claims table). Default false: such a claim reads "crosses builds — rerun".
  bool allow_cross_build = false;
};

/// The profiles every spec knows. `paper` is the spec as written.
const std::vector<std::string>& profile_names();

/// Profiles a spec runs under only when its own `profiles:` defines them: `cpu`, the real pre-trained
/// encoder on a CPU, needs each artifact's own scaling (epochs, learning rates, which tasks fit), so a
/// spec without it is refused under it rather than run at paper scale.
bool is_opt_in_profile(const std::string& profile);
/// Whether `spec` runs under `profile`: every profile but an opt-in one the spec does not define.
bool spec_has_profile(const Spec& spec, const std::string& profile);

/// Loads and checks `path`. Shared profile overlays come from `profiles.yaml` beside it when it
/// exists; the spec's own `profiles:` entries are applied on top. Throws SpecError listing every problem.
Spec load_spec(const std::string& path);

/// The same, appending every problem to `diagnostics` instead of throwing; the spec returned holds
/// what could be read (values with problems are left out), so that later checks can add theirs.
Spec load_spec(const std::string& path, std::vector<Diagnostic>& diagnostics);

}  // namespace capaboost::harness
