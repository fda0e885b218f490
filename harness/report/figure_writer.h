#pragma once
// Figures: a CSV of the plotted points, and PDF + PNG rendered by gnuplot from a template in plots/.

#include "report/aggregate.h"
#include "spec/spec.h"

#include <string>
#include <utility>
#include <vector>

namespace capaboost::harness {

/// One plotted point: x as the CSV shows it, the x gnuplot draws (dodged beside other series), and
/// the mean and sample standard deviation of y over `n` seeds.
struct FigurePoint {
  std::string x;
  double plot_x = 0;
  double mean = 0, std = 0;
  size_t n = 0;
};

/// One series (a line, or one point) of a figure.
struct FigureSeries {
  std::string name;
  std::vector<FigurePoint> points;
};

/// Points of a figure whose x is a parameter: `cells` has the series as rows and x values as columns.
/// Series measured at the same x are shifted by up to ±1.5% of the axis (a factor on a log axis) so
/// that their error bars do not hide one another.
std::vector<FigureSeries> points_by_parameter(const CellTable& cells, bool log_x);

/// Points of a figure whose x is a record metric: one point per series, x the mean of `x_cells`, y
/// from `y_cells` (both aggregated with the same rows and columns). With several columns (the values
/// of `over`), x is the mean over columns and y the mean over seeds of each seed's column average, so
/// a series needs every column and the seeds all its columns share. A series without y values (a rank
/// for an adapter) has no points, and keeps its place (and so its colour).
std::vector<FigureSeries> points_by_metric(const CellTable& x_cells, const CellTable& y_cells);

/// Points of a figure whose x is a record metric measured at each value of a parameter (`x` and
/// `x_metric` together): one point per column that has both values, x the mean of `x_cells` there, y
/// from `y_cells` (both aggregated with the same rows and columns) — e.g. a fit's residual against the
/// parameters each rank spends. Points keep the columns' order.
std::vector<FigureSeries> points_along_metric(const CellTable& x_cells, const CellTable& y_cells);

/// `text` as gnuplot shows it literally inside a double-quoted enhanced-text string: quotes and
/// backslashes escaped, and the markup characters _ ^ @ & ~ { } too ("power_law" stays "power_law").
std::string gnuplot_literal(const std::string& text);

/// `text` broken at spaces into lines of at most `width` bytes (a longer word gets a line of its own):
/// a figure's caption line in gnuplot is not wrapped, and past the picture's edges it is cut.
std::vector<std::string> wrap_words(const std::string& text, size_t width);

/// A picture gnuplot renders from a template of plots/: its placeholders' texts and the two sizes.
struct GnuplotPicture {
  std::string template_name;  ///< plots/<template_name>.gp
  std::vector<std::pair<std::string, std::string>> fills;  ///< placeholder ("@TITLE@") → text, in order
  std::string pdf_size = "4in,3in";
  std::string png_size = "800,600";
};

/// Writes <out_dir>/<name>.gp from the template with its placeholders filled and, when gnuplot is
/// installed, renders <name>.pdf and <name>.png (the script reads its data files from out_dir). Returns
/// the files written.
std::vector<std::string> render_gnuplot(const GnuplotPicture& picture, const std::string& name,
                                        const std::string& plots_dir, const std::string& out_dir);

/// Writes <out_dir>/<layout.file>.csv (series,x,mean,std,n) and, when gnuplot is installed, .pdf and
/// .png from plots/<template>.gp (placeholders @TITLE@ @XLABEL@ @YLABEL@ @LOGX@ @KEY@ @PLOT@; beyond six series the key moves outside and the picture widens). Returns the
/// files written.
std::vector<std::string> write_figure(const FigureLayout& layout, const std::vector<FigureSeries>& series,
                                      const std::string& title, const std::string& plots_dir,
                                      const std::string& out_dir);

}  // namespace capaboost::harness
