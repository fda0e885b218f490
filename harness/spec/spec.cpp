#include "spec/spec.h"

#include "measures/measure_registry.h"
#include "measures/parameter_catalogue.h"
#include "spec/parameter_yaml.h"
#include "tokenizers/utf8.h"
#include "util/closest_match.h"
#include "util/path_name.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <regex>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

namespace capaboost::harness {
namespace {

namespace fs = std::filesystem;

// Collects diagnostics while walking one YAML file.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  void error(const YAML::Node& node, std::string message) {
    diagnostics_.push_back(Diagnostic::at(mark(node), std::move(message)));
  }
  SourceMark mark(const YAML::Node& node) const { return mark_of(file_, node); }
  const std::string& file() const { return file_; }
  std::vector<Diagnostic>& diagnostics() { return diagnostics_; }

  bool expect_map(const YAML::Node& node, const std::string& what) {
    if (node.IsMap()) return true;
    error(node, fmt::format("{} must be a mapping of key: value", what));
    return false;
  }

  // Checks the keys of a mapping against `allowed`, reporting unknown ones with a suggestion.
  void check_keys(const YAML::Node& map, const std::vector<std::string>& allowed, const std::string& where) {
    for (const auto& item : map) {
      const auto key = item.first.as<std::string>();
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        error(item.first, fmt::format("unknown key '{}' in {}{}", key, where, did_you_mean(key, allowed)));
      }
    }
  }

  // A value that becomes a file or folder name (util/path_name.h): reported at `node` when it could leave
  // the folder it is written under.
  void path_name(const YAML::Node& node, const std::string& value, const std::string& what) {
    if (const auto problem = path_name_problem(value)) {
      error(node, fmt::format("{} '{}' becomes a file name and it {}; use {}", what, printable_name(value), *problem,
                              path_name_rule()));
    }
  }

  std::optional<std::string> string_value(const YAML::Node& node, const std::string& key) {
    if (node.IsScalar()) return node.Scalar();
    error(node, fmt::format("'{}' must be a string", key));
    return std::nullopt;
  }

  // A mapping of run parameters, typed by the catalogue; `extra` names keys that are not parameters
  // but allowed here. Where each value was written goes to `marks`.
  nlohmann::json parameters(const YAML::Node& map, const std::string& where, ParameterMarks& marks,
                            const std::vector<std::string>& extra = {}) {
    nlohmann::json result = nlohmann::json::object();
    if (!expect_map(map, where)) return result;
    for (const auto& item : map) {
      const auto key = item.first.as<std::string>();
      if (std::find(extra.begin(), extra.end(), key) != extra.end()) continue;
      const CatalogueEntry* entry = known_parameter(item.first, where, extra);
      if (!entry) continue;
      if (auto value = parameter_from_yaml(key, *entry, item.second, file_, diagnostics_)) {
        result[key] = *value;
        marks[key] = mark(item.second);
      }
    }
    return result;
  }

  // The catalogue entry of the parameter `key` names, or nullptr after reporting it as unknown.
  const CatalogueEntry* known_parameter(const YAML::Node& key, const std::string& where,
                                        const std::vector<std::string>& extra = {}) {
    const auto name = key.as<std::string>();
    const auto& catalogue = parameter_catalogue();
    const auto it = catalogue.find(name);
    if (it == catalogue.end()) {
      auto candidates = catalogue_names();
      candidates.insert(candidates.end(), extra.begin(), extra.end());
      error(key, fmt::format("unknown parameter '{}' in {}{}", name, where, did_you_mean(name, candidates)));
      return nullptr;
    }
    return &it->second;
  }

  // {parameter: {from: to, …}, …} → {parameter: [[from, to], …]}, both values typed as the parameter.
  nlohmann::json replacements(const YAML::Node& map, const std::string& where, ParameterMarks& marks) {
    nlohmann::json result = nlohmann::json::object();
    if (!expect_map(map, where)) return result;
    for (const auto& item : map) {
      const auto key = item.first.as<std::string>();
      const CatalogueEntry* entry = known_parameter(item.first, where);
      if (!entry) continue;
      if (!expect_map(item.second, fmt::format("{} '{}' (old value: new value)", where, key))) continue;
      auto pairs = nlohmann::json::array();
      for (const auto& pair : item.second) {
        auto from = parameter_from_yaml(key, *entry, pair.first, file_, diagnostics_);
        auto to = parameter_from_yaml(key, *entry, pair.second, file_, diagnostics_);
        if (from && to) pairs.push_back({*from, *to});
      }
      result[key] = pairs;
      marks[key] = mark(item.second);
    }
    return result;
  }

  Axes axes(const YAML::Node& map, const std::string& where) {
    Axes result;
    if (!expect_map(map, where)) return result;
    for (const auto& item : map) {
      const auto key = item.first.as<std::string>();
      const CatalogueEntry* entry = known_parameter(item.first, where);
      if (!entry) continue;
      if (!item.second.IsSequence() || item.second.size() == 0) {
        error(item.second, fmt::format("axis '{}' in {} must be a non-empty list of values", key, where));
        continue;
      }
      std::vector<nlohmann::json> values;
      for (const auto& value : item.second) {
        if (auto converted = parameter_from_yaml(key, *entry, value, file_, diagnostics_)) values.push_back(*converted);
      }
      result.push_back({key, values, mark(item.second)});
    }
    return result;
  }

  template <typename T>
  std::optional<std::vector<T>> list(const YAML::Node& node, const std::string& key, double min, bool exclusive) {
    if (!node.IsSequence() || node.size() == 0) {
      error(node, fmt::format("'{}' must be a non-empty list", key));
      return std::nullopt;
    }
    std::vector<T> values;
    for (const auto& item : node) {
      T value{};
      if (!item.IsScalar() || !YAML::convert<T>::decode(item, value)) {
        error(item, fmt::format("'{}' entries must be {}", key, std::is_integral_v<T> ? "integers" : "numbers"));
        return std::nullopt;
      }
      if (exclusive ? value <= min : value < min) {
        error(item, fmt::format("'{}' entries must be {} {}", key, exclusive ? ">" : ">=", min));
        return std::nullopt;
      }
      values.push_back(value);
    }
    return values;
  }

  // A non-empty list of row labels, each written once.
  std::optional<std::vector<std::string>> labels(const YAML::Node& node, const std::string& key) {
    if (!node.IsSequence() || node.size() == 0) {
      error(node, fmt::format("'{}' must be a non-empty list of row labels", key));
      return std::nullopt;
    }
    std::vector<std::string> values;
    for (const auto& item : node) {
      const auto label = string_value(item, key);
      if (!label) return std::nullopt;
      if (std::find(values.begin(), values.end(), *label) != values.end()) {
        error(item, fmt::format("'{}' names row '{}' twice", key, *label));
        return std::nullopt;
      }
      values.push_back(*label);
    }
    return values;
  }

  ProfileOverlay profile(const YAML::Node& node, const std::string& name) {
    ProfileOverlay overlay;
    const std::string where = fmt::format("profile '{}'", name);
    if (!expect_map(node, where)) return overlay;
    check_keys(node, {"set", "replace", "seeds", "lr_grid", "row_lr_grid", "keep_rows", "grid", "zip", "caption"},
               where);
    if (node["set"]) overlay.set = parameters(node["set"], where + " set", overlay.set_marks);
    if (node["replace"]) overlay.replace = replacements(node["replace"], where + " replace", overlay.replace_marks);
    if (node["seeds"]) {
      overlay.seeds = list<int64_t>(node["seeds"], "seeds", 0, false);
      overlay.seeds_mark = mark(node["seeds"]);
    }
    if (node["lr_grid"]) {
      overlay.lr_grid = list<double>(node["lr_grid"], "lr_grid", 0, true);
      overlay.lr_grid_mark = mark(node["lr_grid"]);
    }
    if (node["row_lr_grid"] && expect_map(node["row_lr_grid"], where + " row_lr_grid")) {
      for (const auto& item : node["row_lr_grid"]) {
        const auto label = item.first.as<std::string>();
        if (auto grid = list<double>(item.second, "row_lr_grid", 0, true)) {
          overlay.row_lr_grids[label] = *grid;
          overlay.row_lr_grid_marks[label] = mark(item.second);
        }
      }
    }
    if (node["keep_rows"]) {
      overlay.keep_rows = labels(node["keep_rows"], "keep_rows");
      overlay.keep_rows_mark = mark(node["keep_rows"]);
    }
    if (node["grid"]) overlay.grid = axes(node["grid"], where + " grid");
    if (node["zip"]) overlay.zip = axes(node["zip"], where + " zip");
    if (node["caption"]) overlay.caption = string_value(node["caption"], "caption").value_or("");
    return overlay;
  }

 private:
  std::string file_;
  std::vector<Diagnostic> diagnostics_;
};

std::optional<YAML::Node> load_yaml(const std::string& path, std::vector<Diagnostic>& diagnostics) {
  if (!fs::exists(path)) {
    diagnostics.push_back({path, 0, 0, "no such file"});
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    diagnostics.push_back({path, 0, 0, "cannot be read"});
    return std::nullopt;
  }
  // YAML is Unicode text; yaml-cpp passes other bytes through, and every name and value would carry them
  // into run keys and reports (the spec fuzzer found a 0xFF in a profile's zip ending the program).
  if (const auto bad = first_ill_formed_utf8(text)) {
    const size_t line_start = text.rfind('\n', *bad == 0 ? 0 : *bad - 1);
    const size_t line = static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(*bad), '\n')) + 1;
    const size_t column = line_start == std::string::npos || *bad == 0 ? *bad + 1 : *bad - line_start;
    diagnostics.push_back({path, static_cast<int>(line), static_cast<int>(column),
                           fmt::format("not UTF-8 text (byte 0x{:02X}); save the spec as UTF-8",
                                       static_cast<unsigned char>(text[*bad]))});
    return std::nullopt;
  }
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    diagnostics.push_back({path, e.mark.line + 1, e.mark.column + 1, "YAML syntax: " + e.msg});
    return std::nullopt;
  }
}

void merge_overlay(ProfileOverlay& into, const ProfileOverlay& from) {
  for (auto& [key, value] : from.set.items()) {
    into.set[key] = value;
    into.set_marks[key] = from.set_marks.at(key);
  }
  for (auto& [key, pairs] : from.replace.items()) {
    into.replace[key] = pairs;
    into.replace_marks[key] = from.replace_marks.at(key);
  }
  if (from.seeds) {
    into.seeds = from.seeds;
    into.seeds_mark = from.seeds_mark;
  }
  if (from.lr_grid) {
    into.lr_grid = from.lr_grid;
    into.lr_grid_mark = from.lr_grid_mark;
  }
  for (const auto& [label, grid] : from.row_lr_grids) {
    into.row_lr_grids[label] = grid;
    into.row_lr_grid_marks[label] = from.row_lr_grid_marks.at(label);
  }
  if (from.keep_rows) {
    into.keep_rows = from.keep_rows;
    into.keep_rows_mark = from.keep_rows_mark;
  }
  if (from.zip) into.zip = from.zip;
  if (!from.caption.empty()) into.caption = from.caption;
  for (const auto& axis : from.grid) {
    auto it = std::find_if(into.grid.begin(), into.grid.end(), [&](const Axis& a) { return a.name == axis.name; });
    if (it == into.grid.end()) {
      into.grid.push_back(axis);
    } else {
      *it = axis;
    }
  }
}

void read_profiles(Reader& reader, const YAML::Node& node, std::map<std::string, ProfileOverlay>& into) {
  if (!reader.expect_map(node, "profiles")) return;
  for (const auto& item : node) {
    const auto name = item.first.as<std::string>();
    if (std::find(profile_names().begin(), profile_names().end(), name) == profile_names().end()) {
      reader.error(item.first, fmt::format("unknown profile '{}'{}; profiles are {}", name,
                                           did_you_mean(name, profile_names()), fmt::join(profile_names(), ", ")));
      continue;
    }
    merge_overlay(into[name], reader.profile(item.second, name));
  }
}

// A row's `per: {axis: {parameter: {axis value: value, …}, …}, …}`, typed by the catalogue.
std::vector<PerValue> read_per(Reader& reader, const YAML::Node& node, const std::string& row) {
  std::vector<PerValue> values;
  const std::string where = row + " per";
  if (!reader.expect_map(node, where + " (per: {swept parameter: {parameter: {its value: value}}})")) return values;
  const auto& catalogue = parameter_catalogue();
  for (const auto& axis : node) {
    const auto axis_name = axis.first.as<std::string>();
    const CatalogueEntry* axis_entry = reader.known_parameter(axis.first, where);
    if (!axis_entry || !reader.expect_map(axis.second, where + " " + axis_name)) continue;
    for (const auto& parameter : axis.second) {
      const auto name = parameter.first.as<std::string>();
      const CatalogueEntry* entry = reader.known_parameter(parameter.first, where + " " + axis_name);
      if (!entry || !reader.expect_map(parameter.second, fmt::format("{} {} {}", where, axis_name, name))) continue;
      for (const auto& item : parameter.second) {
        auto when = parameter_from_yaml(axis_name, catalogue.at(axis_name), item.first, reader.file(), reader.diagnostics());
        auto value = parameter_from_yaml(name, *entry, item.second, reader.file(), reader.diagnostics());
        if (when && value) values.push_back({axis_name, *when, name, *value, reader.mark(item.second)});
      }
    }
  }
  return values;
}

// The measure `node` names, or "" after reporting it when no measure of that name is registered.
std::string registered_measure(Reader& reader, const YAML::Node& node, const std::string& where) {
  const std::string name = reader.string_value(node, "measure").value_or("");
  const auto measures = measure_names();
  if (name.empty() || std::find(measures.begin(), measures.end(), name) != measures.end()) return name;
  reader.error(node, fmt::format("unknown measure '{}'{}{}; measures: {}", name, where, did_you_mean(name, measures),
                                 fmt::join(measures, ", ")));
  return "";
}

// Whether `label` names one of the spec's rows; reports at `node` (naming `where`) when it does not.
bool known_row(Reader& reader, const YAML::Node& node, const Spec& spec, const std::string& label,
               const std::string& where) {
  std::vector<std::string> labels;
  for (const auto& row : spec.rows) labels.push_back(row.label);
  if (spec.table) {
    for (const auto& group : spec.table->group_average) labels.push_back(spec.table->group_row(group));
  }
  if (std::find(labels.begin(), labels.end(), label) != labels.end()) return true;
  reader.error(node, fmt::format("{}: no row is labelled '{}'{}", where, label, did_you_mean(label, labels)));
  return false;
}

// A side is a row label, or {row: label, column: value}; rows must be the spec's own.
std::optional<ComparisonSide> comparison_side(Reader& reader, const YAML::Node& node, const Spec& spec,
                                              const std::string& where) {
  ComparisonSide side;
  if (node.IsScalar()) {
    side.row = node.as<std::string>();
  } else if (node.IsMap()) {
    reader.check_keys(node, {"row", "column"}, where);
    if (!node["row"]) {
      reader.error(node, where + " needs 'row'");
      return std::nullopt;
    }
    side.row = node["row"].as<std::string>();
    if (node["column"]) side.column = node["column"].as<std::string>();
  } else {
    reader.error(node, where + " must be a row label or {row: label, column: value}");
    return std::nullopt;
  }
  if (!known_row(reader, node, spec, side.row, where)) return std::nullopt;
  return side;
}

void read_comparisons(Reader& reader, const YAML::Node& node, Spec& spec) {
  if (!node.IsSequence()) {
    reader.error(node, "report.comparisons must be a list of {claim: ..., a: row, b: row}");
    return;
  }
  if (!spec.table || spec.table->rows != "label") {
    reader.error(node, "report.comparisons compares rows of report.table (rows: label): add the table first");
    return;
  }
  for (const auto& item : node) {
    if (!reader.expect_map(item, "a comparison")) continue;
    reader.check_keys(item, {"claim", "a", "b", "metric", "within", "at", "family", "chosen_from"}, "a comparison");
    for (const char* required : {"claim", "a", "b"}) {
      if (!item[required]) reader.error(item, fmt::format("a comparison needs '{}'", required));
    }
    if (!item["claim"] || !item["a"] || !item["b"]) continue;
    ComparisonLayout layout;
    layout.claim = item["claim"].as<std::string>();
    const auto a = comparison_side(reader, item["a"], spec, "comparison side 'a'");
    const auto b = comparison_side(reader, item["b"], spec, "comparison side 'b'");
    if (item["metric"]) {
      layout.metric = item["metric"].as<std::string>();
      const auto& metrics = spec.table->metrics;
      if (std::find(metrics.begin(), metrics.end(), layout.metric) == metrics.end()) {
        reader.error(item["metric"], fmt::format("comparison metric '{}' is not among report.table's metrics ({})",
                                                 layout.metric, fmt::join(metrics, ", ")));
      }
    }
    if (const auto within = item["within"]) {
      double margin = 0;
      if (YAML::convert<double>::decode(within, margin) && margin > 0) {
        layout.within = margin;
      } else {
        reader.error(within, "a comparison's 'within' is the margin of a claim that A and B perform alike: a number above 0");
      }
    }
    // A claim that two rows perform alike is an equivalence claim: without a margin an equivalence test has
    // nothing to judge it by, and "no signal" would be read as agreement.
    static const std::regex alike_wording(R"(\b(match(es)?|keeps?|performs? (alike|like|similarly)|just as well|on par)\b)",
                                          std::regex::icase);
    if (!item["within"] && std::regex_search(layout.claim, alike_wording)) {
      reader.error(item["claim"], "a claim that A matches or keeps B's score is an equivalence claim: give it "
                                  "'within: m', the margin in the metric's units that its equivalence test (TOST) judges it by");
    }
    if (const auto family = item["family"]) {
      if (family.IsScalar() && !family.as<std::string>().empty()) {
        layout.family = family.as<std::string>();
      } else {
        reader.error(family, "a comparison's 'family' names the claims adjusted for multiplicity together: a name");
      }
    }
    if (const auto chosen_from = item["chosen_from"]) {
      int settings = 0;
      if (YAML::convert<int>::decode(chosen_from, settings) && settings >= 1) {
        layout.chosen_from = settings;
      } else {
        reader.error(chosen_from, "a comparison's 'chosen_from' is how many settings A was picked from on these "
                                  "seeds: a whole number, 1 or more");
      }
    }
    if (const auto at = item["at"]) {
      if (!at.IsScalar() || at.as<std::string>() != "chosen_on_eval") {
        reader.error(at, "a comparison's 'at' can only be 'chosen_on_eval' (each side at the column its eval score picks)");
      } else if (spec.table->columns.empty()) {
        reader.error(at, "'at: chosen_on_eval' picks a column per side: report.table needs 'columns' (e.g. lr)");
      } else if ((a && !a->column.empty()) || (b && !b->column.empty())) {
        reader.error(at, "'at: chosen_on_eval' picks each side's column itself: remove the sides' 'column'");
      } else {
        layout.at_chosen_on_eval = true;
      }
    }
    if (!a || !b) continue;
    layout.a = *a;
    layout.b = *b;
    spec.comparisons.push_back(layout);
  }
}

// One figure: x is a parameter, or x_metric a record metric (optionally averaged `over` a parameter).
void read_figure(Reader& reader, const YAML::Node& figure, const std::string& where, Spec& spec) {
  if (!reader.expect_map(figure, where)) return;
  reader.check_keys(figure, {"x", "x_metric", "over", "series", "metric", "template", "xlabel", "ylabel", "logscale_x"},
                    where);
  FigureLayout layout;
  for (const char* required : {"series", "metric", "template"}) {
    if (!figure[required]) reader.error(figure, fmt::format("{} needs '{}'", where, required));
  }
  if (!figure["x"] && !figure["x_metric"]) {
    reader.error(figure, fmt::format("{} needs 'x' (a parameter), 'x_metric' (a record metric) or both", where));
  }
  if (figure["over"] && (!figure["x_metric"] || figure["x"])) {
    reader.error(figure["over"], fmt::format("{}: 'over' averages an x_metric figure; with 'x' every value is a point", where));
  }
  if (figure["x"]) layout.x = figure["x"].as<std::string>();
  if (figure["x_metric"]) {
    layout.x_metric = figure["x_metric"].as<std::string>();
    spec.metric_references.push_back({layout.x_metric, where + ".x_metric", reader.mark(figure["x_metric"])});
  }
  if (figure["over"]) layout.over = figure["over"].as<std::string>();
  if (figure["series"]) layout.series = figure["series"].as<std::string>();
  if (figure["metric"]) {
    layout.metric = figure["metric"].as<std::string>();
    spec.metric_references.push_back({layout.metric, where + ".metric", reader.mark(figure["metric"])});
  }
  if (figure["template"]) {
    layout.template_name = figure["template"].as<std::string>();
    reader.path_name(figure["template"], layout.template_name, where + ".template");
  }
  layout.xlabel = figure["xlabel"] ? figure["xlabel"].as<std::string>() : layout.x_metric.empty() ? layout.x : layout.x_metric;
  layout.ylabel = figure["ylabel"] ? figure["ylabel"].as<std::string>() : layout.metric;
  if (const auto logscale = figure["logscale_x"]) {
    bool flag = false;
    int base = 0;
    if (YAML::convert<bool>::decode(logscale, flag)) {
      layout.log_base_x = flag ? 2 : 0;
    } else if (YAML::convert<int>::decode(logscale, base) && base >= 2) {
      layout.log_base_x = base;
    } else {
      reader.error(logscale, fmt::format("{}.logscale_x is true, false or a log base (2, 10)", where));
    }
  }
  spec.figures.push_back(layout);
}

// report.table.group_average: {title: T, groups: {NAME: [row label, …], …}}, rows the spec's own, each
// group's row label new.
void read_group_average(Reader& reader, const YAML::Node& node, const Spec& spec, TableLayout& layout) {
  const std::string where = "report.table.group_average";
  if (!reader.expect_map(node, where + " ({title: Avg, groups: {NAME: [row, …]}})")) return;
  reader.check_keys(node, {"title", "groups"}, where);
  if (!node["title"] || !node["title"].IsScalar() || node["title"].Scalar().empty()) {
    reader.error(node, where + " needs 'title', the average column's heading (Avg)");
    return;
  }
  layout.group_average_title = node["title"].Scalar();
  const auto groups = node["groups"];
  if (!groups || !groups.IsMap() || groups.size() == 0) {
    reader.error(groups ? groups : node, where + ".groups maps each group's name to its rows: {LoRA: [LoRA 0.08%, …]}");
    return;
  }
  for (const auto& item : groups) {
    TableLayout::RowGroup group{item.first.as<std::string>(), {}};
    const auto rows = reader.labels(item.second, where + ".groups." + group.name);
    if (!rows) continue;
    for (size_t i = 0; i < rows->size(); ++i) known_row(reader, item.second[i], spec, (*rows)[i], where + ".groups." + group.name);
    group.rows = *rows;
    const std::string label = layout.group_row(group);
    if (std::any_of(spec.rows.begin(), spec.rows.end(), [&](const auto& row) { return row.label == label; })) {
      reader.error(item.first, fmt::format("{}: the group's row '{}' is a row label of the spec already", where, label));
    }
    layout.group_average.push_back(group);
  }
}

void read_report(Reader& reader, const YAML::Node& node, Spec& spec) {
  if (!reader.expect_map(node, "report")) return;
  reader.check_keys(node, {"table", "figure", "comparisons", "split", "allow_cross_build"}, "report");
  if (const auto allow = node["allow_cross_build"]) {
    if (!YAML::convert<bool>::decode(allow, spec.allow_cross_build)) {
      reader.error(allow, "report.allow_cross_build is true or false (whether pairs of runs from two builds get verdicts)");
    }
  }
  if (const auto split = node["split"]) {
    if (split.IsScalar() && !split.as<std::string>().empty()) {
      spec.report_split = split.as<std::string>();
    } else {
      reader.error(split, "report.split names one parameter: a report is written per value of it (split: target)");
    }
  }
  if (const auto table = node["table"]; table && reader.expect_map(table, "report.table")) {
    reader.check_keys(table, {"rows", "columns", "metrics", "decimals", "higher_is_better", "scale", "budget",
                              "group_average"},
                      "report.table");
    TableLayout layout;
    if (table["rows"]) layout.rows = table["rows"].as<std::string>();
    if (table["columns"]) layout.columns = table["columns"].as<std::string>();
    if (table["metrics"] && table["metrics"].IsSequence()) {
      for (const auto& m : table["metrics"]) {
        layout.metrics.push_back(m.as<std::string>());
        spec.metric_references.push_back({layout.metrics.back(), "report.table.metrics", reader.mark(m)});
      }
    } else {
      reader.error(table["metrics"] ? table["metrics"] : table, "report.table needs 'metrics': a list of record metrics");
    }
    // A number for every metric, or {metric: n, …} with the others at 1.
    if (const auto decimals = table["decimals"]; decimals && decimals.IsMap()) {
      for (const auto& item : decimals) {
        const auto metric = item.first.as<std::string>();
        if (std::find(layout.metrics.begin(), layout.metrics.end(), metric) == layout.metrics.end()) {
          reader.error(item.first, fmt::format("report.table.decimals names '{}', which is not among its metrics{}",
                                               metric, did_you_mean(metric, layout.metrics)));
        }
        layout.metric_decimals[metric] = item.second.as<int>();
      }
    } else if (decimals) {
      layout.decimals = decimals.as<int>();
    }
    if (table["higher_is_better"]) layout.higher_is_better = table["higher_is_better"].as<bool>();
    if (const auto scale = table["scale"]) {
      if (!YAML::convert<double>::decode(scale, layout.scale) || !(layout.scale > 0)) {
        reader.error(scale, "report.table.scale multiplies the values shown: a number above 0 (100 for percentages)");
      }
    }
    if (const auto budget = table["budget"]) {
      if (!budget.IsMap()) {
        reader.error(budget, "report.table.budget maps record metrics to column titles: {fine_tuned_percent: FT params %}");
      } else {
        for (const auto& item : budget) {
          BudgetColumn column{item.first.as<std::string>(), "", ""};
          spec.metric_references.push_back({column.metric, "report.table.budget", reader.mark(item.first)});
          if (item.second.IsScalar()) {
            column.title = item.second.as<std::string>();
          } else if (item.second.IsMap()) {
            const std::string where = "report.table.budget." + column.metric;
            reader.check_keys(item.second, {"title", "relative_to"}, where);
            if (!item.second["title"]) {
              reader.error(item.second, where + " needs 'title'");
              continue;
            }
            column.title = item.second["title"].as<std::string>();
            if (const auto reference = item.second["relative_to"]) {
              column.relative_to = reference.as<std::string>();
              if (layout.rows == "label") known_row(reader, reference, spec, column.relative_to, where + ".relative_to");
            }
          } else {
            reader.error(item.second, "a budget column is a title, or {title: T, relative_to: ROW} for a factor of "
                                      "one row's value: {tuner_flops_per_token: {title: FLOPs vs LoRA, relative_to: LoRA}}");
            continue;
          }
          layout.budget.push_back(column);
        }
      }
    }
    if (const auto groups = table["group_average"]) read_group_average(reader, groups, spec, layout);
    spec.table = layout;
  }
  if (const auto figure = node["figure"]) {
    if (figure.IsSequence()) {
      // Several panels: each is named after its metric, so a metric drawn twice would overwrite itself.
      std::set<std::string> metrics;
      for (size_t i = 0; i < figure.size(); ++i) {
        const auto before = spec.figures.size();
        read_figure(reader, figure[i], fmt::format("report.figure[{}]", i), spec);
        if (spec.figures.size() == before) continue;
        auto& layout = spec.figures.back();
        layout.file = "figure_" + layout.metric;
        if (figure[i]["metric"]) reader.path_name(figure[i]["metric"], layout.file, fmt::format("report.figure[{}]'s file", i));
        if (!metrics.insert(layout.metric).second) {
          reader.error(figure[i], fmt::format("report.figure[{}] draws '{}' again; one figure per metric", i, layout.metric));
        }
      }
    } else {
      read_figure(reader, figure, "report.figure", spec);
    }
  }
  if (const auto comparisons = node["comparisons"]) read_comparisons(reader, comparisons, spec);
}

// Rules of the spec's structure (a run's own values are checked when it is planned: plan/plan.h).
void check_consistency(Reader& reader, const YAML::Node& root, const Spec& spec) {
  for (const auto& axis : spec.grid) {
    if (axis.name == "seed") reader.error(root["grid"], "put seeds in 'seeds:', not in grid");
    if (axis.name == "lr" && !spec.lr_grid.empty()) reader.error(root["grid"], "'lr' is both a grid axis and lr_grid; keep lr_grid");
  }
  const auto check_zip = [&](const Axes& zip, const YAML::Node& node, const std::string& where) {
    size_t zip_length = 0;
    for (const auto& axis : zip) {
      if (zip_length && axis.values.size() != zip_length) {
        reader.error(node, fmt::format("{} axes must have equal lengths; '{}' has {} values, expected {}", where,
                                       axis.name, axis.values.size(), zip_length));
      }
      zip_length = axis.values.size();
    }
  };
  check_zip(spec.zip, root["zip"], "zip");
  for (const auto& [name, overlay] : spec.profiles) {
    if (overlay.zip) check_zip(*overlay.zip, root["profiles"][name]["zip"], "profile '" + name + "' zip");
  }

  // A sweep axis sets its parameter in every run after the row's values (plan/expansion.h), so a row
  // value for the same parameter would never be used. A profile's `set`/`replace` override rows on
  // purpose (rescaling a paper-scale spec) and are not counted.
  std::map<std::string, std::string> swept;  // parameter → what sets it
  const auto sweeps = [&](const Axes& axes, const std::string& where) {
    for (const auto& axis : axes) swept.emplace(axis.name, where);
  };
  sweeps(spec.grid, "the grid");
  sweeps(spec.zip, "the zip");
  if (!spec.lr_grid.empty()) swept.emplace("lr", "lr_grid");
  if (!spec.seeds.empty()) swept.emplace("seed", "seeds");
  for (const auto& [name, overlay] : spec.profiles) {
    const std::string where = "profile '" + name + "'";
    sweeps(overlay.grid, where + " grid");
    if (overlay.zip) sweeps(*overlay.zip, where + " zip");
    if (overlay.lr_grid && !overlay.lr_grid->empty()) swept.emplace("lr", where + " lr_grid");
    if (overlay.seeds && !overlay.seeds->empty()) swept.emplace("seed", where + " seeds");
  }
  for (const auto& row : spec.rows) {
    if (row.parameters.contains("lr") && row.lr_grid && !row.lr_grid->empty()) {
      reader.diagnostics().push_back(Diagnostic::at(
          row.marks.at("lr"), fmt::format("row '{}' sets both 'lr' and its own lr_grid; keep one", row.label)));
    }
    const bool own_rate = row.lr_grid && row.lr_grid->empty();
    if (own_rate && !row.parameters.contains("lr") &&
        std::none_of(row.per.begin(), row.per.end(), [](const auto& per) { return per.parameter == "lr"; })) {
      reader.diagnostics().push_back(Diagnostic::at(
          row.lr_grid_mark, fmt::format("row '{}' sweeps no learning rate (lr_grid: []) and sets none: give it 'lr', "
                                        "or 'lr' in its per, or a non-empty lr_grid",
                                        row.label)));
    }
    for (const auto& [key, value] : row.parameters.items()) {
      if (key == "lr" && own_rate) continue;  // the row opted out of the spec's lr_grid
      if (auto it = swept.find(key); it != swept.end()) {
        reader.diagnostics().push_back(Diagnostic::at(
            row.marks.at(key), fmt::format("row '{}' sets '{}', which {} also sets in every run, so the row's "
                                           "value would never be used; remove it from the row or from the sweep",
                                           row.label, key, it->second)));
      }
    }
  }

  // Every value a sweep gives the axis of a row's `per` needs its entry: a missing one would leave
  // that run with the sweep's value, silently.
  for (const auto& row : spec.rows) {
    std::map<std::pair<std::string, std::string>, std::vector<nlohmann::json>> covered;  // (axis, parameter) → values
    for (const auto& per : row.per) covered[{per.axis, per.parameter}].push_back(per.when);
    // Named references, not a structured binding: C++17 lambdas cannot capture those (GCC allows it,
    // clang, which the fuzz build uses, does not).
    for (const auto& entry : covered) {
      const auto& key = entry.first;
      const auto& whens = entry.second;
      const auto check_axes = [&](const Axes& axes, const std::string& where) {
        for (const auto& axis : axes) {
          if (axis.name != key.first) continue;
          for (const auto& value : axis.values) {
            if (std::find(whens.begin(), whens.end(), value) != whens.end()) continue;
            reader.diagnostics().push_back(Diagnostic::at(
                row.where, fmt::format("row '{}' gives '{}' per {} but not for {} = {} ({}); add it to the row's per",
                                       row.label, key.second, key.first, key.first, value.dump(), where)));
          }
        }
      };
      check_axes(spec.grid, "the grid");
      check_axes(spec.zip, "the zip");
      for (const auto& [name, overlay] : spec.profiles) {
        check_axes(overlay.grid, "profile '" + name + "' grid");
        if (overlay.zip) check_axes(*overlay.zip, "profile '" + name + "' zip");
      }
    }
  }
}

}  // namespace

const std::vector<std::string>& profile_names() {
  static const std::vector<std::string> names{"paper", "cpu", "mini", "smoke"};
  return names;
}

bool is_opt_in_profile(const std::string& profile) { return profile == "cpu"; }

bool spec_has_profile(const Spec& spec, const std::string& profile) {
  return !is_opt_in_profile(profile) || spec.own_profiles.count(profile) > 0;
}

Spec load_spec(const std::string& path) {
  std::vector<Diagnostic> diagnostics;
  Spec spec = load_spec(path, diagnostics);
  if (!diagnostics.empty()) throw SpecError(std::move(diagnostics));
  return spec;
}

// A function-try-block: whatever the walk below meets, the caller gets a diagnostic, not an exception.
Spec load_spec(const std::string& path, std::vector<Diagnostic>& diagnostics) try {
  Spec spec;
  spec.file = path;
  Reader reader(path);
  // Whatever happens below, the caller receives every problem found so far.
  struct Report {
    Reader& reader;
    std::vector<Diagnostic>& into;
    ~Report() {
      auto tidied = tidy(reader.diagnostics());
      into.insert(into.end(), tidied.begin(), tidied.end());
    }
  } report{reader, diagnostics};
  auto root = load_yaml(path, reader.diagnostics());
  if (!root) return {};
  if (!reader.expect_map(*root, "an experiment spec")) return {};
  const auto& node = *root;
  reader.check_keys(node, {"name", "title", "measure", "paper", "defaults", "rows", "grid", "zip", "seeds", "lr_grid",
                           "profiles", "report"},
                    "the spec");

  for (const char* required : {"name", "measure", "rows"}) {
    if (!node[required]) reader.error(node, fmt::format("the spec needs '{}'", required));
  }
  if (node["name"]) {
    spec.name = reader.string_value(node["name"], "name").value_or("");
    // The name is the reports' folder (results/reports/<name>/<profile>) and part of SLURM's.
    if (node["name"].IsScalar()) reader.path_name(node["name"], spec.name, "the spec's name");
  }
  if (node["title"]) spec.title = reader.string_value(node["title"], "title").value_or("");
  if (node["measure"]) spec.measure = registered_measure(reader, node["measure"], "");
  const fs::path directory = fs::path(path).parent_path();
  if (const auto paper = node["paper"]) {
    // One file, or a list of them (one per metric the paper reports).
    std::vector<YAML::Node> files;
    if (paper.IsSequence()) {
      for (const auto& file : paper) files.push_back(file);
    } else {
      files.push_back(paper);
    }
    for (const auto& file : files) {
      const auto name = reader.string_value(file, "paper").value_or("");
      spec.paper.push_back((directory / name).string());
      if (!fs::exists(spec.paper.back())) {
        reader.error(file, fmt::format("paper-numbers file '{}' does not exist", spec.paper.back()));
      }
    }
  }
  if (node["defaults"]) spec.defaults = reader.parameters(node["defaults"], "defaults", spec.default_marks);
  if (node["rows"]) {
    if (!node["rows"].IsSequence() || node["rows"].size() == 0) {
      reader.error(node["rows"], "'rows' must be a non-empty list of {label: ..., parameter: value}");
    } else {
      std::set<std::string> labels;
      for (const auto& row : node["rows"]) {
        RowSpec parsed;
        parsed.where = reader.mark(row);
        if (!reader.expect_map(row, "a row")) continue;
        if (!row["label"]) {
          reader.error(row, "every row needs a 'label'");
        } else {
          parsed.label = row["label"].as<std::string>();
          if (!labels.insert(parsed.label).second) reader.error(row["label"], fmt::format("duplicate row label '{}'", parsed.label));
        }
        if (row["measure"]) {
          parsed.measure = registered_measure(reader, row["measure"], fmt::format(" in row '{}'", parsed.label));
        }
        parsed.parameters =
            reader.parameters(row, fmt::format("row '{}'", parsed.label), parsed.marks, {"label", "measure", "per", "lr_grid"});
        if (row["per"]) parsed.per = read_per(reader, row["per"], fmt::format("row '{}'", parsed.label));
        if (row["lr_grid"]) {
          // `lr_grid: []`: the row sweeps no rate; it runs its own `lr`, or one per task from its `per`
          // (a prior work's recipe).
          const bool no_grid = row["lr_grid"].IsSequence() && row["lr_grid"].size() == 0;
          parsed.lr_grid = no_grid ? std::vector<double>{} : reader.list<double>(row["lr_grid"], "lr_grid", 0, true);
          parsed.lr_grid_mark = reader.mark(row["lr_grid"]);
        }
        spec.rows.push_back(parsed);
      }
    }
  }
  if (node["grid"]) spec.grid = reader.axes(node["grid"], "grid");
  if (node["zip"]) spec.zip = reader.axes(node["zip"], "zip");
  if (node["seeds"]) {
    spec.seeds = reader.list<int64_t>(node["seeds"], "seeds", 0, false).value_or(spec.seeds);
    spec.seeds_mark = reader.mark(node["seeds"]);
  }
  if (node["lr_grid"]) {
    spec.lr_grid = reader.list<double>(node["lr_grid"], "lr_grid", 0, true).value_or(spec.lr_grid);
    spec.lr_grid_mark = reader.mark(node["lr_grid"]);
  }

  // Shared overlays first, then the spec's own on top of them.
  const fs::path shared = directory / "profiles.yaml";
  if (fs::exists(shared)) {
    Reader shared_reader(shared.string());
    if (auto profiles = load_yaml(shared.string(), shared_reader.diagnostics())) {
      read_profiles(shared_reader, *profiles, spec.profiles);
    }
    for (auto& d : shared_reader.diagnostics()) reader.diagnostics().push_back(d);
  }
  if (node["profiles"]) {
    read_profiles(reader, node["profiles"], spec.profiles);
    if (node["profiles"].IsMap()) {
      for (const auto& item : node["profiles"]) spec.own_profiles.insert(item.first.as<std::string>());
    }
  }
  if (node["report"]) {
    try {
      read_report(reader, node["report"], spec);
    } catch (const YAML::Exception& e) {
      reader.diagnostics().push_back({path, e.mark.line + 1, e.mark.column + 1, "report: " + e.msg});
    }
  }
  if (reader.diagnostics().empty()) check_consistency(reader, node, spec);
  return spec;
} catch (const YAML::BadConversion& e) {
  // A list or a mapping where the walk reads a single value (a row's label, a key) fails yaml-cpp's
  // conversion; Report has already handed over what was found before it.
  diagnostics.push_back({path, e.mark.line + 1, e.mark.column + 1,
                         "expected a single value here, found a list or a mapping"});
  return {};
} catch (const YAML::Exception& e) {  // any other yaml-cpp error of the walk (an invalid node, …)
  diagnostics.push_back({path, e.mark.line + 1, e.mark.column + 1, "YAML: " + e.msg});
  return {};
}

}  // namespace capaboost::harness
