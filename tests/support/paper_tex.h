#pragma once
// Reading the paper's LaTeX source (../shared/seeds/capaboost-iclr2024.tex) in tests: its location, a
// table's cells as plain text, and its prose with whitespace collapsed, so that what experiments/paper/
// transcribes can be checked against what the paper prints.

#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "support/shared_dir.h"

namespace capaboost::testing {

/// The paper's source: $CAPABOOST_SHARED_DIR/seeds/…, else <repo>/../shared/seeds/… (may not exist).
inline std::filesystem::path paper_tex_path() { return shared_dir() / "seeds" / "capaboost-iclr2024.tex"; }

/// A LaTeX table cell as plain text: "$\mathbf{66.88}_{ \transparent{0.5} \pm 0.5 }$" → "66.88±0.5",
/// "\algopt-LoRA ($d=2$)" → "CapaBoost-LoRA (d=2)", "$1.02$x" → "1.02", "0.71\%" → "0.71",
/// "{$5\times 10^{-4}$}" → "5\times 10^-4".
inline std::string plain_cell(std::string text) {
  static const std::vector<std::pair<std::regex, std::string>> rules = {
      {std::regex(R"(\\multicolumn\{\d+\}\{[^}]*\})"), ""},
      {std::regex(R"(\\transparent\{[^}]*\})"), ""},
      {std::regex(R"(\\algopt)"), "CapaBoost"},
      {std::regex(R"(\\(mathbf|textbf|bf|small)\b)"), ""},
      {std::regex(R"(\\%|\$|\{|\})"), ""},
      {std::regex(R"(\s*_\s*\\pm\s*)"), "±"},
      {std::regex(R"(\s+)"), " "},
      {std::regex(R"(^ | $)"), ""},
      {std::regex(R"(^([0-9.]+)x$)"), "$1"},
  };
  for (const auto& [pattern, replacement] : rules) text = std::regex_replace(text, pattern, replacement);
  return text;
}

/// The data rows of the tabular in the table environment that holds \label{<label>} (a caption and its
/// label may come before or after the tabular), as plain cells; commented-out lines skipped. Empty when
/// the label or its tabular is not found.
inline std::vector<std::vector<std::string>> tex_table(const std::string& tex, const std::string& label) {
  const auto at = tex.find("\\label{" + label + "}");
  if (at == std::string::npos) return {};
  const auto table = tex.rfind("\\begin{table", at);
  const auto wraptable = tex.rfind("\\begin{wraptable", at);
  size_t start = 0;
  if (table != std::string::npos) start = table;
  if (wraptable != std::string::npos && (table == std::string::npos || wraptable > table)) start = wraptable;
  const auto begin = tex.find("\\begin{tabular}", start);
  const auto end = begin == std::string::npos ? std::string::npos : tex.find("\\end{tabular}", begin);
  if (end == std::string::npos) return {};
  std::istringstream lines(tex.substr(begin, end - begin));
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(lines, line);) {
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '%' || line.find('&') == std::string::npos) continue;
    line = line.substr(0, line.find("\\\\"));
    std::vector<std::string> cells;
    std::istringstream parts(line);
    for (std::string cell; std::getline(parts, cell, '&');) cells.push_back(plain_cell(cell));
    rows.push_back(cells);
  }
  return rows;
}

/// `text` with every run of whitespace turned into one space and none at either end (so that a quote
/// of the paper matches however its source wraps lines).
inline std::string collapse_whitespace(const std::string& text) {
  return std::regex_replace(std::regex_replace(text, std::regex(R"(\s+)"), " "), std::regex(R"(^ | $)"), "");
}

}  // namespace capaboost::testing
