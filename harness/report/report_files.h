#pragma once
// Everything `capaboost report` writes for one spec and profile, from the records of its runs: per table
// metric a LaTeX, CSV and Markdown table (the Markdown ending with the paired differences, the claims
// and the regime line), comparisons.csv, and the figures; with report.split, one such folder per value.
// `capaboost verify` writes the same into a scratch folder and compares (commands/verify_command.cpp).

#include "measures/measure_registry.h"
#include "plan/run_config.h"
#include "report/paper_numbers.h"
#include "spec/spec.h"
#include "store/record_store.h"

#include <string>
#include <vector>

namespace capaboost::harness {

struct ReportInputs {
  const Spec& spec;
  const std::vector<RunConfig>& runs;  ///< the profile's planned runs
  const RecordStore& store;            ///< where their records are
  std::string profile;
  std::string plots_dir = "plots";     ///< the gnuplot templates
  RunContext context;                  ///< its data root: the tasks' chance levels are read from the data
  bool quiet = false;                  ///< print nothing (else each file written, and the Markdown)
};

/// Writes the report into `out`. Returns the number of cells' missing or failed runs.
int write_report_files(const ReportInputs& inputs, const std::string& out);

}  // namespace capaboost::harness
