#pragma once
// Expanding a spec into the parameters each run is given, before resolution: rows × grid (cartesian)
// × zip × lr_grid × seeds, with the profile overlay applied last. Every given value remembers where
// the spec wrote it, so a problem found when the run is resolved points at that line.

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "spec/spec.h"

namespace capaboost::harness {

/// Where a run's given value came from.
struct ValueOrigin {
  SourceMark mark;
  std::string where;    ///< "defaults", "row 'LoRA'", "grid", "zip", "lr_grid", "seeds", "profile 'smoke' set", …
  bool shared = false;  ///< from defaults or a profile's set: applies where a run takes it, ignored elsewhere
};

/// One run as the spec gives it.
struct RunDraft {
  std::string label;
  std::string measure;
  nlohmann::json given = nlohmann::json::object();
  std::map<std::string, ValueOrigin> origins;  ///< one per key of `given`
  SourceMark row;                              ///< the row it came from
};

/// The drafts of `spec` under `profile` (`paper` is the spec as written), in expansion order.
std::vector<RunDraft> expand_spec(const Spec& spec, const std::string& profile);

/// Whether `profile` runs the row labelled `label`: every row, unless the profile's `keep_rows` leaves it out.
bool profile_runs_row(const Spec& spec, const std::string& profile, const std::string& label);

/// The axis names of a spec (for display names): grid, zip, lr and seed.
std::vector<std::string> axis_names(const Spec& spec);

}  // namespace capaboost::harness
