#pragma once
// Which cells did not learn: a row whose score sits at its task's chance level on every seed (MCC 0,
// the majority class's accuracy, F1 of calling everything positive, a correlation near 0) compared
// with anything tests nothing, so the claims leave such columns out (report/paired_comparison.h, rule 2).
//
// A cell did not learn when every seed's value is at or below the chance level plus kChanceBand
// standard errors of a chance-level score on the cell's test split (metrics/chance_level.h): sampling
// alone puts a model that learned nothing there about 97.7% of the time. The levels come from the
// measure (MeasureSpec::chance_levels), computed from the task's data, so records made before this
// rule are judged the same way.

#include "measures/measure_registry.h"
#include "plan/run_config.h"
#include "report/aggregate.h"

#include <string>
#include <vector>

namespace capaboost::harness {

/// How many standard errors above the chance level a score may sit and still count as chance.
inline constexpr double kChanceBand = 2.0;

/// Sets each cell's chance_bound for `metric` (values as the table shows them: multiplied by `scale`)
/// from the chance levels of the runs behind it; a metric where lower is better, or one without a
/// chance level for some run of the cell, gets none. `context` gives the data root the levels are
/// computed from.
void set_chance_bounds(CellTable& cells, const std::vector<RunConfig>& runs, const std::string& metric, double scale,
                       bool higher_is_better, const RunContext& context);

}  // namespace capaboost::harness
