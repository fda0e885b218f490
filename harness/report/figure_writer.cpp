#include "report/figure_writer.h"

#include "util/shell_quote.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace capaboost::harness {
namespace {

namespace fs = std::filesystem;

std::string read_template(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("{}: figure template not found (report.figure.template)", path.string()));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw std::runtime_error(fmt::format("{}: cannot write", path.string()));
}

}  // namespace

std::string gnuplot_literal(const std::string& text) {
  std::string literal;
  for (char c : text) {
    if (c == '"' || c == '\\') {
      literal += std::string("\\") + c;  // the double-quoted string's own escapes
    } else if (std::string("_^@&~{}").find(c) != std::string::npos) {
      literal += std::string("\\\\") + c;  // enhanced text's: "\\_" reaches it as \_
    } else {
      literal += c;
    }
  }
  return literal;
}

std::vector<FigureSeries> points_by_parameter(const CellTable& cells, bool log_x) {
  double low = INFINITY, high = -INFINITY;
  for (const auto& x : cells.columns) {
    if (const auto value = numeric_label(x)) {
      low = std::min(low, *value);
      high = std::max(high, *value);
    }
  }
  const double n = static_cast<double>(cells.rows.size());
  std::vector<FigureSeries> figure;
  for (size_t index = 0; index < cells.rows.size(); ++index) {
    FigureSeries series{cells.rows[index], {}};
    const auto& row = cells.cells.at(series.name);
    for (size_t column = 0; column < cells.columns.size(); ++column) {
      const auto& x = cells.columns[column];
      auto it = row.find(x);
      if (it == row.end() || it->second.empty()) continue;
      // Named x values ("CoLA") are categories, drawn at their position 1, 2, …
      const auto value = numeric_label(x);
      double plot_x = value.value_or(static_cast<double>(column + 1));
      if (value && high > low && n > 1) {
        const double offset = (static_cast<double>(index) - (n - 1) / 2) / (n - 1) * 0.03;  // within ±1.5%
        plot_x = log_x ? *value * std::pow(high / low, offset) : *value + offset * (high - low);
      }
      series.points.push_back({x, plot_x, it->second.mean(), it->second.std(), it->second.values.size()});
    }
    figure.push_back(series);
  }
  return figure;
}

std::vector<FigureSeries> points_by_metric(const CellTable& x_cells, const CellTable& y_cells) {
  std::vector<FigureSeries> figure;
  for (const auto& name : y_cells.rows) {
    FigureSeries& series = figure.emplace_back(FigureSeries{name, {}});
    const auto x_row = x_cells.cells.find(name);
    const auto& y_row = y_cells.cells.at(name);
    if (x_row == x_cells.cells.end() || x_cells.columns.size() != y_cells.columns.size()) continue;
    // Both tables come from the same runs in the same order, so their columns pair up by position
    // (without `over` each has one column, named after its own metric).
    double x_sum = 0;
    std::map<int64_t, std::vector<double>> by_seed;  // seed → y in each column
    bool complete = true;
    for (size_t c = 0; complete && c < y_cells.columns.size(); ++c) {
      const auto x_cell = x_row->second.find(x_cells.columns[c]);
      const auto y_cell = y_row.find(y_cells.columns[c]);
      complete = x_cell != x_row->second.end() && !x_cell->second.empty() && y_cell != y_row.end() &&
                 !y_cell->second.empty();
      if (!complete) break;
      x_sum += x_cell->second.mean();
      for (size_t i = 0; i < y_cell->second.values.size(); ++i) {
        by_seed[y_cell->second.seeds[i]].push_back(y_cell->second.values[i]);
      }
    }
    if (!complete) continue;
    Cell averages;  // one value per seed that every column has
    for (const auto& [seed, values] : by_seed) {
      if (values.size() != y_cells.columns.size()) continue;
      double sum = 0;
      for (double v : values) sum += v;
      averages.values.push_back(sum / static_cast<double>(values.size()));
    }
    if (averages.empty()) continue;
    const double x = x_sum / static_cast<double>(y_cells.columns.size());
    series.points.push_back({fmt::format("{}", x), x, averages.mean(), averages.std(), averages.values.size()});
  }
  return figure;
}

std::vector<FigureSeries> points_along_metric(const CellTable& x_cells, const CellTable& y_cells) {
  std::vector<FigureSeries> figure;
  for (const auto& name : y_cells.rows) {
    FigureSeries& series = figure.emplace_back(FigureSeries{name, {}});
    const auto x_row = x_cells.cells.find(name);
    if (x_row == x_cells.cells.end()) continue;
    const auto& y_row = y_cells.cells.at(name);
    for (const auto& column : y_cells.columns) {
      const auto x_cell = x_row->second.find(column);
      const auto y_cell = y_row.find(column);
      if (x_cell == x_row->second.end() || x_cell->second.empty() || y_cell == y_row.end() || y_cell->second.empty()) {
        continue;
      }
      const double x = x_cell->second.mean();
      series.points.push_back({fmt::format("{}", x), x, y_cell->second.mean(), y_cell->second.std(),
                               y_cell->second.values.size()});
    }
  }
  return figure;
}

std::vector<std::string> wrap_words(const std::string& text, size_t width) {
  std::vector<std::string> lines;
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    if (!lines.empty() && lines.back().size() + 1 + word.size() <= width) {
      lines.back() += " " + word;
    } else {
      lines.push_back(word);
    }
  }
  return lines;
}

std::vector<std::string> write_figure(const FigureLayout& layout, const std::vector<FigureSeries>& figure,
                                      const std::string& title, const std::string& plots_dir,
                                      const std::string& out_dir) {
  fs::create_directories(out_dir);
  const std::string& name = layout.file;
  std::vector<std::string> written;
  // CSV for people (the true x); a gnuplot data file with one block per series for the plot.
  std::string csv = "series,x,mean,std,n\n", data, plot;
  int block = 0, drawn = 0;
  // A series keeps its colour (gnuplot line type = its position) in every panel of a spec, even when
  // another panel leaves out series without values.
  for (size_t index = 0; index < figure.size(); ++index) {
    const auto& series = figure[index];
    std::string points;
    for (const auto& point : series.points) {
      csv += fmt::format("{},{},{},{},{}\n", csv_field(series.name), point.x, point.mean, point.std, point.n);
      points += fmt::format("{} {} {}\n", point.plot_x, point.mean, point.std);
    }
    if (points.empty()) continue;
    data += points + "\n\n";
    // Eight colours, then the same colours dashed and with square points: up to 16 series stay apart.
    plot += fmt::format("{}'{}.dat' index {} using 1:2:3 with yerrorlines lt {} dt {} lw 2 pt {} ps {} title \"{}\"",
                        plot.empty() ? "" : ", ", name, block++, index % 8 + 1, index / 8 + 1, index < 8 ? 7 : 5,
                        series.points.size() == 1 ? 1.4 : 0.8, gnuplot_literal(series.name));
    ++drawn;
  }
  const fs::path csv_path = fs::path(out_dir) / (name + ".csv");
  write_text(csv_path, csv);
  written.push_back(csv_path.string());
  if (plot.empty()) return written;
  write_text(fs::path(out_dir) / (name + ".dat"), data);

  // Beyond six series a key inside the frame hides data: it moves to the right of the plot.
  const bool key_outside = drawn > 6;
  const GnuplotPicture picture{
      layout.template_name,
      {{"@TITLE@", title},
       {"@XLABEL@", layout.xlabel},
       {"@YLABEL@", layout.ylabel},
       {"@LOGX@", layout.log_base_x ? fmt::format("set logscale x {}", layout.log_base_x) : "unset logscale x"},
       {"@KEY@", key_outside ? "set key outside right top" : "set key left top"},
       {"@PLOT@", plot}},
      key_outside ? "5.5in,3in" : "4in,3in",
      key_outside ? "1100,600" : "800,600"};
  for (auto& file : render_gnuplot(picture, name, plots_dir, out_dir)) written.push_back(std::move(file));
  return written;
}

std::vector<std::string> render_gnuplot(const GnuplotPicture& picture, const std::string& name,
                                        const std::string& plots_dir, const std::string& out_dir) {
  std::string script = read_template(fs::path(plots_dir) / (picture.template_name + ".gp"));
  for (const auto& [placeholder, text] : picture.fills) replace_all(script, placeholder, text);
  const fs::path script_path = fs::path(out_dir) / (name + ".gp");
  write_text(script_path, script);
  std::vector<std::string> written = {script_path.string()};
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
    fmt::print(stderr, "capaboost: gnuplot is not installed (make deps installs gnuplot-nox); {} not rendered\n",
               script_path.string());
    return written;
  }
  for (const auto& [terminal, extension] : {std::pair<std::string, std::string>{"pdfcairo size " + picture.pdf_size, "pdf"},
                                            {"pngcairo size " + picture.png_size, "png"}}) {
    const fs::path output = fs::path(out_dir) / (name + "." + extension);
    const std::string command =
        fmt::format("cd {} && gnuplot -e \"set terminal {}; set output '{}'\" {}", shell_quote(out_dir), terminal,
                    output.filename().string(), shell_quote(name + ".gp"));
    if (std::system(command.c_str()) != 0) throw std::runtime_error("gnuplot failed on " + script_path.string());
    written.push_back(output.string());
  }
  return written;
}

}  // namespace capaboost::harness
