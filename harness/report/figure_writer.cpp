#include "report/figure_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace capaboost::harness {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
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

// x of series `index` of n, shifted by up to ±1.5% of the axis (a factor on a log axis); non-numeric x
// labels are left as they are.
std::function<std::string(const std::string&, size_t)> dodge_function(const CellTable& cells, bool logscale) {
  double low = INFINITY, high = -INFINITY;
  for (const auto& x : cells.columns) {
    if (const auto value = numeric_label(x)) {
      low = std::min(low, *value);
      high = std::max(high, *value);
    }
  }
  const double n = static_cast<double>(cells.rows.size());
  return [=](const std::string& x, size_t index) {
    const auto value = numeric_label(x);
    if (!value || !(high > low) || n < 2) return x;
    const double offset = (static_cast<double>(index) - (n - 1) / 2) / (n - 1) * 0.03;  // within ±1.5%
    const double shifted = logscale ? *value * std::pow(high / low, offset) : *value + offset * (high - low);
    return fmt::format("{}", shifted);
  };
}

}  // namespace

std::vector<std::string> write_figure(const FigureLayout& layout, const CellTable& cells, const std::string& title,
                                      const std::string& plots_dir, const std::string& out_dir,
                                      const std::string& name) {
  fs::create_directories(out_dir);
  std::vector<std::string> written;
  // CSV for people; a gnuplot data file with one block per series for the plot.
  std::string csv = "series,x,mean,std,n\n", data, plot;
  int block = 0;
  // Series measured at the same x are drawn side by side (a small horizontal dodge), so that their
  // error bars do not hide one another; the CSV keeps the true x.
  const auto dodge = dodge_function(cells, layout.logscale_x);
  for (size_t index = 0; index < cells.rows.size(); ++index) {
    const auto& series = cells.rows[index];
    std::string points;
    for (const auto& x : cells.columns) {
      const auto& row = cells.cells.at(series);
      auto it = row.find(x);
      if (it == row.end() || it->second.empty()) continue;
      csv += fmt::format("{},{},{},{},{}\n", csv_field(series), x, it->second.mean(), it->second.std(), it->second.values.size());
      points += fmt::format("{} {} {}\n", dodge(x, index), it->second.mean(), it->second.std());
    }
    if (points.empty()) continue;
    data += points + "\n\n";
    plot += fmt::format("{}'{}.dat' index {} using 1:2:3 with yerrorlines lw 2 pt 7 ps 0.8 title \"{}\"",
                        plot.empty() ? "" : ", ", name, block++, series);
  }
  const fs::path csv_path = fs::path(out_dir) / (name + ".csv");
  write_text(csv_path, csv);
  written.push_back(csv_path.string());
  if (plot.empty()) return written;
  write_text(fs::path(out_dir) / (name + ".dat"), data);

  std::string script = read_file(fs::path(plots_dir) / (layout.template_name + ".gp"));
  replace_all(script, "@TITLE@", title);
  replace_all(script, "@XLABEL@", layout.xlabel);
  replace_all(script, "@YLABEL@", layout.ylabel);
  replace_all(script, "@LOGX@", layout.logscale_x ? "set logscale x 2" : "unset logscale x");
  replace_all(script, "@PLOT@", plot);
  const fs::path script_path = fs::path(out_dir) / (name + ".gp");
  write_text(script_path, script);
  written.push_back(script_path.string());
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
    fmt::print(stderr, "capaboost: gnuplot is not installed (make deps installs gnuplot-nox); wrote {} only\n",
               csv_path.string());
    return written;
  }
  for (const auto& [terminal, extension] : {std::pair<std::string, std::string>{"pdfcairo size 4in,3in", "pdf"},
                                            {"pngcairo size 800,600", "png"}}) {
    const fs::path output = fs::path(out_dir) / (name + "." + extension);
    const std::string command =
        fmt::format("cd '{}' && gnuplot -e \"set terminal {}; set output '{}'\" '{}.gp'", out_dir, terminal,
                    output.filename().string(), name);
    if (std::system(command.c_str()) != 0) throw std::runtime_error("gnuplot failed on " + script_path.string());
    written.push_back(output.string());
  }
  return written;
}

}  // namespace capaboost::harness
