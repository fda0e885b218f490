#pragma once
// Figures: a CSV of the plotted points, and PDF + PNG rendered by gnuplot from a template in plots/.

#include "report/aggregate.h"
#include "spec/spec.h"

#include <string>

namespace capaboost::harness {

/// Writes <out_dir>/<name>.csv (series,x,mean,std,n) and, when gnuplot is installed, <name>.pdf and
/// <name>.png from plots/<template>.gp (placeholders @DATA@ @TITLE@ @XLABEL@ @YLABEL@ @LOGX@ @PLOT@).
/// `cells`: rows are series, columns are x values. Returns the files written.
std::vector<std::string> write_figure(const FigureLayout& layout, const CellTable& cells, const std::string& title,
                                      const std::string& plots_dir, const std::string& out_dir,
                                      const std::string& name);

}  // namespace capaboost::harness
