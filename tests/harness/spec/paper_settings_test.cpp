// The paper profile runs what the paper ran: experiments/paper/settings.yaml lists, spec by spec, each
// run-affecting setting the paper gives (with where its LaTeX gives it) and each documented choice where the
// paper is silent or contradicts itself; every spec is planned under `paper` and every entry is checked
// against the runs it names, and against the LaTeX source when ../shared/seeds holds it. The format is
// described at the top of settings.yaml.

#include "measures/parameter_catalogue.h"
#include "plan/plan.h"
#include "spec/parameter_yaml.h"
#include "support/paper_tex.h"
#include "support/read_text.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

using namespace capaboost::harness;
namespace fs = std::filesystem;

namespace {

const fs::path kExperiments = fs::path(CAPABOOST_SOURCE_DIR) / "experiments";
const fs::path kSettings = kExperiments / "paper" / "settings.yaml";

// `node` as the JSON value of run parameter `parameter` (typed as the parameter catalogue types it).
std::optional<nlohmann::json> typed(const std::string& parameter, const YAML::Node& node, std::vector<std::string>& problems) {
  const auto& catalogue = parameter_catalogue();
  const auto entry = catalogue.find(parameter);
  if (entry == catalogue.end()) {
    problems.push_back(fmt::format("'{}' is no run parameter", parameter));
    return std::nullopt;
  }
  std::vector<Diagnostic> diagnostics;
  auto value = parameter_from_yaml(parameter, entry->second, node, kSettings.string(), diagnostics);
  for (const auto& diagnostic : diagnostics) problems.push_back(diagnostic.message);
  return value;
}

std::string text_of(const nlohmann::json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

std::string entry_name(const std::string& spec, size_t index, const YAML::Node& entry) {
  return fmt::format("{} entry {} ({}, line {})", spec, index, entry["parameter"].as<std::string>("?"), entry.Mark().line + 1);
}

/// What `runs` (a spec's paper-profile plan, whose rows are `labels`) do differently from `entries`
/// (settings.yaml's list for the spec): one line per problem, empty when every entry holds.
std::vector<std::string> settings_problems(const std::string& spec, const YAML::Node& entries,
                                           const std::vector<std::string>& labels, const std::vector<RunConfig>& runs) {
  std::vector<std::string> problems;
  for (size_t i = 0; i < entries.size(); ++i) {
    const YAML::Node& entry = entries[i];
    const std::string name = entry_name(spec, i, entry);
    const auto report = [&](const std::string& what) { problems.push_back(name + ": " + what); };
    if (!entry["parameter"]) {
      report("needs 'parameter'");
      continue;
    }
    // A misspelt key would otherwise drop what it says silently.
    static const std::set<std::string> keys = {"parameter", "rows", "check", "per", "paper", "spec", "why", "tex"};
    static const std::set<std::string> tex_keys = {"quote", "implied", "table", "row", "rows", "column"};
    for (const auto& item : entry) {
      if (!keys.count(item.first.as<std::string>())) report("unknown key '" + item.first.as<std::string>() + "'");
    }
    if (entry["tex"] && entry["tex"].IsMap()) {
      for (const auto& item : entry["tex"]) {
        if (!tex_keys.count(item.first.as<std::string>())) report("unknown tex key '" + item.first.as<std::string>() + "'");
      }
    }
    const auto parameter = entry["parameter"].as<std::string>();
    const std::string check = entry["check"] ? entry["check"].as<std::string>() : "each";
    const std::string per = entry["per"] ? entry["per"].as<std::string>() : "";
    if (entry["spec"] && (!entry["why"] || entry["why"].as<std::string>().empty())) {
      report("a 'spec' value differs from the paper or fills its silence: say why ('why')");
    }
    const YAML::Node expected = entry["spec"] ? entry["spec"] : entry["paper"];
    if (!expected) {
      report("needs 'paper' or 'spec'");
      continue;
    }
    if ((check == "reported" || !per.empty()) && !expected.IsMap()) {
      report("per '" + per + "' needs a map from the axis's values");
      continue;
    }
    std::vector<std::string> rows = entry["rows"] ? entry["rows"].as<std::vector<std::string>>() : labels;
    for (const auto& row : rows) {
      if (std::find(labels.begin(), labels.end(), row) == labels.end()) {
        report(fmt::format("the spec has no row '{}'", row));
        continue;
      }
      std::vector<const nlohmann::json*> configs;
      for (const auto& run : runs) {
        if (run.label == row) configs.push_back(&run.config);
      }
      if (configs.empty()) {
        report(fmt::format("row '{}' has no paper-profile runs", row));
        continue;
      }
      const auto lacking = std::find_if(configs.begin(), configs.end(), [&](const nlohmann::json* c) {
        return !c->contains(parameter) || (!per.empty() && !c->contains(per));
      });
      if (lacking != configs.end()) {
        report(fmt::format("row '{}' runs without '{}'{}", row, parameter, per.empty() ? "" : " or '" + per + "'"));
        continue;
      }
      if (check == "each") {
        for (const auto* config : configs) {
          // A fresh node, never an assignment: assigning a yaml-cpp Node writes through to the node it refers to.
          const YAML::Node want_node = per.empty() ? expected : expected[text_of(config->at(per))];
          if (!want_node) {
            report(fmt::format("row '{}': no value for {} = {}", row, per, text_of(config->at(per))));
            break;
          }
          const auto want = typed(parameter, want_node, problems);
          if (!want) break;
          if (config->at(parameter) != *want) {
            report(fmt::format("row '{}'{} runs {} = {}, expected {}", row,
                               per.empty() ? "" : " at " + per + " = " + text_of(config->at(per)), parameter,
                               config->at(parameter).dump(), want->dump()));
            break;
          }
        }
      } else if (check == "set") {
        std::set<std::string> got, want;
        for (const auto* config : configs) got.insert(config->at(parameter).dump());
        for (const auto& value : expected) {
          if (const auto v = typed(parameter, value, problems)) want.insert(v->dump());
        }
        if (got != want) {
          report(fmt::format("row '{}' runs {} in {{{}}}, expected {{{}}}", row, parameter, fmt::join(got, ", "),
                             fmt::join(want, ", ")));
        }
      } else if (check == "count") {
        std::set<std::string> got;
        for (const auto* config : configs) got.insert(config->at(parameter).dump());
        if (got.size() != expected.as<size_t>()) {
          report(fmt::format("row '{}' runs {} distinct {}, expected {}", row, got.size(), parameter, expected.as<size_t>()));
        }
      } else if (check == "reported") {
        for (const auto& item : expected) {
          const auto key = item.first.as<std::string>();
          const auto want = typed(parameter, item.second, problems);
          if (!want) continue;
          const bool planned = std::any_of(configs.begin(), configs.end(), [&](const nlohmann::json* c) {
            return text_of(c->at(per)) == key && c->at(parameter) == *want;
          });
          if (!planned) {
            report(fmt::format("row '{}' never runs {} = {} at {} = {}, the paper's reported choice", row, parameter,
                               want->dump(), per, key));
          }
        }
      } else {
        report("unknown check '" + check + "' (each, set, count, reported)");
        break;
      }
    }
  }
  return problems;
}

// Numbers a quote of the paper states: "5 \times 10^{-4}", "0.5", "$r=8$", and the words one to four.
std::vector<double> quoted_numbers(std::string quote) {
  std::vector<double> numbers;
  static const std::regex scientific(R"(([0-9]+(?:\.[0-9]+)?)\s*\\times\s*10\^\{?(-?[0-9]+)\}?)");
  for (std::smatch m; std::regex_search(quote, m, scientific);) {
    numbers.push_back(std::stod(m[1]) * std::pow(10.0, std::stoi(m[2])));
    quote = m.prefix().str() + " " + m.suffix().str();
  }
  static const std::regex plain(R"([0-9]+(?:\.[0-9]+)?)");
  for (auto it = std::sregex_iterator(quote.begin(), quote.end(), plain); it != std::sregex_iterator(); ++it) {
    numbers.push_back(std::stod(it->str()));
  }
  static const std::map<std::string, double> words = {{"one", 1}, {"two", 2}, {"three", 3}, {"four", 4}};
  static const std::regex word("[A-Za-z]+");
  for (auto it = std::sregex_iterator(quote.begin(), quote.end(), word); it != std::sregex_iterator(); ++it) {
    std::string lower = it->str();
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (const auto found = words.find(lower); found != words.end()) numbers.push_back(found->second);
  }
  return numbers;
}

// Lower case without spaces, '-' and '_': "DeBERTaV3-base" and "deberta-v3-base" read alike.
std::string loose(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (!std::isspace(c) && c != '-' && c != '_') out += static_cast<char>(std::tolower(c));
  }
  return out;
}

// A table cell's number: "128", "0.5", "5\times 10^-4"; nullopt for anything else.
std::optional<double> cell_number(const std::string& cell) {
  static const std::regex scientific(R"(([0-9]+(?:\.[0-9]+)?)\s*\\times\s*10\^\{?(-?[0-9]+)\}?)");
  static const std::regex plain(R"([0-9]+(?:\.[0-9]+)?)");
  std::smatch m;
  if (std::regex_match(cell, m, scientific)) return std::stod(m[1]) * std::pow(10.0, std::stoi(m[2]));
  if (std::regex_match(cell, plain)) return std::stod(cell);
  return std::nullopt;
}

bool close(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)}); }

/// Where settings.yaml's `entry` says the LaTeX source `tex` gives its value, and whether it does.
std::vector<std::string> tex_problems(const std::string& name, const YAML::Node& entry, const std::string& tex) {
  std::vector<std::string> problems;
  const YAML::Node where = entry["tex"];
  if (!where) return problems;
  const auto report = [&](const std::string& what) { problems.push_back(name + ": " + what); };
  if (where["quote"]) {
    const std::string quote = capaboost::testing::collapse_whitespace(where["quote"].as<std::string>());
    if (capaboost::testing::collapse_whitespace(tex).find(quote) == std::string::npos) {
      report("the paper's source does not say \"" + quote + "\"");
      return problems;
    }
    // Words that imply the value, or a value the spec runs instead of the paper's: the quote is the place.
    if (where["implied"] || entry["spec"] || !entry["paper"]) return problems;
    const YAML::Node paper = entry["paper"];
    std::vector<YAML::Node> values;
    if (paper.IsScalar()) values.push_back(paper);
    if (paper.IsSequence()) {
      for (const auto& item : paper) values.push_back(item);
    }
    if (paper.IsMap()) {
      for (const auto& item : paper) values.push_back(item.second);
    }
    const auto numbers = quoted_numbers(quote);
    for (const auto& value : values) {
      double number = 0;
      if (YAML::convert<double>::decode(value, number)) {
        if (std::none_of(numbers.begin(), numbers.end(), [&](double n) { return close(n, number); })) {
          report(fmt::format("the quote states no {} (its numbers: {})", value.as<std::string>(), fmt::join(numbers, ", ")));
        }
      } else if (loose(quote).find(loose(value.as<std::string>())) == std::string::npos) {
        report(fmt::format("the quote does not say '{}'", value.as<std::string>()));
      }
    }
    return problems;
  }
  if (!where["table"] || !where["column"]) {
    report("tex needs a quote, or a table and a column");
    return problems;
  }
  const auto label = where["table"].as<std::string>();
  const auto rows = capaboost::testing::tex_table(tex, label);
  if (rows.empty()) {
    report("no table with \\label{" + label + "} in the paper's source");
    return problems;
  }
  // The value the cells must hold: the paper's (when it is a value), else the spec's.
  const YAML::Node paper = entry["paper"];
  double scratch = 0;
  const bool paper_is_value = paper && (!paper.IsScalar() || YAML::convert<double>::decode(paper, scratch));
  const YAML::Node value = paper_is_value ? paper : entry["spec"];
  if (!value) {
    report("a table reference needs a value to find there ('paper' or 'spec')");
    return problems;
  }
  std::vector<std::pair<std::string, YAML::Node>> cells;  // (row, value)
  if (value.IsMap()) {
    for (const auto& item : value) cells.emplace_back(item.first.as<std::string>(), item.second);
  } else if (where["rows"]) {
    for (const auto& row : where["rows"]) cells.emplace_back(row.as<std::string>(), value);
  } else if (where["row"]) {
    cells.emplace_back(where["row"].as<std::string>(), value);
  } else {
    report("a table reference needs 'row', 'rows' or a per-map value");
  }
  const auto column = where["column"].as<size_t>();
  for (const auto& cell : cells) {
    // Named references, not a structured binding: C++17 lambdas cannot capture those (clang refuses).
    const std::string& row = cell.first;
    const YAML::Node& want = cell.second;
    const auto labelled = [&](const std::vector<std::string>& printed_row) { return printed_row.front() == row; };
    const auto found = std::count_if(rows.begin(), rows.end(), labelled);
    if (found != 1) {
      report(fmt::format("{} has {} rows labelled '{}'", label, found, row));
      continue;
    }
    const auto& cells_of_row = *std::find_if(rows.begin(), rows.end(), labelled);
    if (column >= cells_of_row.size()) {
      report(fmt::format("{} row '{}' has no cell {}", label, row, column));
      continue;
    }
    const std::string printed = cells_of_row[column];
    const auto number = cell_number(printed);
    double expected = 0;
    if (!number || !YAML::convert<double>::decode(want, expected) || !close(*number, expected)) {
      report(fmt::format("{} row '{}' cell {} prints '{}', the entry says {}", label, row, column, printed,
                         want.as<std::string>()));
    }
  }
  return problems;
}

// settings.yaml's entries for `name`, checked against the spec's paper-profile plan.
std::vector<std::string> spec_problems(const std::string& name, const YAML::Node& entries, const Spec& spec) {
  std::vector<std::string> labels;
  for (const auto& row : spec.rows) labels.push_back(row.label);
  return settings_problems(name, entries, labels, plan_runs(spec, "paper"));
}

Spec load(const std::string& name) { return load_checked_spec((kExperiments / (name + ".yaml")).string()); }

}  // namespace

TEST_CASE("every spec's paper profile runs the paper's settings, or the documented choice beside each",
          "[harness][spec][paper]") {
  const YAML::Node settings = YAML::LoadFile(kSettings.string());
  REQUIRE(settings["specs"].IsMap());
  size_t entries = 0;
  for (const auto& item : settings["specs"]) {
    const auto name = item.first.as<std::string>();
    INFO(name);
    for (const auto& problem : spec_problems(name, item.second, load(name))) FAIL_CHECK(problem);
    entries += item.second.size();
  }
  CHECK(entries > 150);
}

TEST_CASE("every spec is either checked against the paper's settings or listed as no reproduction",
          "[harness][spec][paper]") {
  const YAML::Node settings = YAML::LoadFile(kSettings.string());
  std::set<std::string> listed;
  for (const auto& item : settings["specs"]) listed.insert(item.first.as<std::string>());
  for (const auto& name : settings["not_paper"]) {
    INFO(name.as<std::string>());
    CHECK(listed.insert(name.as<std::string>()).second);  // not in both lists
  }
  std::set<std::string> specs;
  for (const auto& entry : fs::directory_iterator(kExperiments)) {
    if (entry.path().extension() != ".yaml" || entry.path().filename() == "profiles.yaml") continue;
    specs.insert(entry.path().stem().string());
  }
  CHECK(listed == specs);  // a new spec says whether it reproduces the paper; a removed one leaves the table
}

TEST_CASE("each paper setting is printed where settings.yaml says, in the paper's LaTeX source", "[harness][spec][paper]") {
  const auto tex_file = capaboost::testing::paper_tex_path();
  if (!fs::exists(tex_file)) {
    WARN("skipped: the paper's source is not at " << tex_file.string() << " (set CAPABOOST_SHARED_DIR)");
    return;
  }
  const std::string tex = capaboost::testing::read_text(tex_file);
  const YAML::Node settings = YAML::LoadFile(kSettings.string());
  size_t located = 0;
  for (const auto& item : settings["specs"]) {
    const auto name = item.first.as<std::string>();
    for (size_t i = 0; i < item.second.size(); ++i) {
      const YAML::Node& entry = item.second[i];
      // A value the paper gives needs its place in the paper.
      if (entry["paper"] && !entry["tex"]) FAIL_CHECK(entry_name(name, i, entry) << ": the paper's value needs 'tex'");
      const auto problems = tex_problems(entry_name(name, i, entry), entry, tex);
      for (const auto& problem : problems) FAIL_CHECK(problem);
      located += entry["tex"] ? 1 : 0;
    }
  }
  CHECK(located > 120);
}

TEST_CASE("the settings check fails on a drifted spec and on a wrong value", "[harness][spec][paper]") {
  const YAML::Node settings = YAML::LoadFile(kSettings.string());
  const YAML::Node table3 = settings["specs"]["table3_glue_deberta_v3_base"];
  Spec spec = load("table3_glue_deberta_v3_base");
  REQUIRE(spec_problems("table3", table3, spec).empty());

  SECTION("a row's epochs drift from the appendix's PAdapter table") {
    auto row = std::find_if(spec.rows.begin(), spec.rows.end(), [](const RowSpec& r) { return r.label == "CapaBoost-PAdapter"; });
    REQUIRE(row != spec.rows.end());
    for (auto& value : row->per) {
      if (value.parameter == "epochs" && value.when == "CoLA") value.value = 15;  // LoRA's CoLA epochs
    }
    const auto problems = spec_problems("table3", table3, spec);
    REQUIRE(problems.size() == 1);
    CHECK_THAT(problems.front(), Catch::Contains("CapaBoost-PAdapter") && Catch::Contains("task = CoLA") &&
                                     Catch::Contains("epochs = 15, expected 10"));
  }
  SECTION("a shared default drifts: every row that runs it is named") {
    spec.defaults["batch_size"] = 32;
    const auto problems = spec_problems("table3", table3, spec);
    REQUIRE_FALSE(problems.empty());
    CHECK_THAT(problems.front(), Catch::Contains("batch_size = 32, expected 128"));
  }
  SECTION("a grid loses a learning rate") {
    spec.lr_grid.pop_back();
    const auto problems = spec_problems("table3", table3, spec);
    REQUIRE_FALSE(problems.empty());
    CHECK_THAT(problems.front(), Catch::Contains("runs lr in") && Catch::Contains("0.005"));
  }
  SECTION("a wrong value in the table fails against the spec and against the LaTeX") {
    YAML::Node wrong = YAML::Clone(table3);
    size_t index = 0;
    for (; index < wrong.size(); ++index) {
      const YAML::Node entry = wrong[index];
      const YAML::Node rows = entry["rows"];
      if (entry["parameter"].as<std::string>() == "epochs" && rows && rows[0].as<std::string>() == "CapaBoost-PAdapter") break;
    }
    REQUIRE(index < wrong.size());
    wrong[index]["paper"]["QQP"] = 20;  // the LoRA table's QQP epochs, not the PAdapter table's 30
    const auto problems = spec_problems("table3", wrong, spec);
    REQUIRE(problems.size() == 1);
    CHECK_THAT(problems.front(), Catch::Contains("epochs = 30, expected 20"));
    const auto tex_file = capaboost::testing::paper_tex_path();
    if (fs::exists(tex_file)) {
      const auto located = tex_problems("table3", wrong[index], capaboost::testing::read_text(tex_file));
      REQUIRE(located.size() == 1);
      CHECK_THAT(located.front(), Catch::Contains("tab:deberta_padapter_hparams row 'QQP' cell 3 prints '30'"));
    }
  }
  SECTION("a kept deviation needs its reason") {
    YAML::Node unexplained = YAML::Clone(table3);
    for (auto entry : unexplained) {
      if (entry["why"]) entry.remove("why");
    }
    const auto problems = spec_problems("table3", unexplained, spec);
    REQUIRE_FALSE(problems.empty());
    CHECK_THAT(problems.front(), Catch::Contains("say why"));
  }
  SECTION("a row the spec does not have") {
    YAML::Node renamed = YAML::Clone(table3);
    renamed[0]["rows"] = std::vector<std::string>{"CapaBoost-Adapter"};
    const auto problems = spec_problems("table3", renamed, spec);
    REQUIRE(problems.size() == 1);
    CHECK_THAT(problems.front(), Catch::Contains("no row 'CapaBoost-Adapter'"));
  }
}
