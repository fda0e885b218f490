#include "plan/expansion.h"

#include <fmt/format.h>

#include <algorithm>

#include "util/closest_match.h"

namespace capaboost::harness {
namespace {

// A partial draft: some given values with their origins.
struct Point {
  nlohmann::json values = nlohmann::json::object();
  std::map<std::string, ValueOrigin> origins;
};

// Cartesian product of the grid axes.
std::vector<Point> grid_points(const Axes& grid) {
  std::vector<Point> points{Point{}};
  for (const auto& axis : grid) {
    std::vector<Point> next;
    for (const auto& point : points) {
      for (const auto& value : axis.values) {
        auto extended = point;
        extended.values[axis.name] = value;
        extended.origins[axis.name] = {axis.mark, "grid", false};
        next.push_back(std::move(extended));
      }
    }
    points = std::move(next);
  }
  return points;
}

// The zip axes element by element.
std::vector<Point> zip_points(const Axes& zip) {
  if (zip.empty()) return {Point{}};
  std::vector<Point> points(zip.front().values.size());
  for (const auto& axis : zip) {
    for (size_t i = 0; i < points.size() && i < axis.values.size(); ++i) {
      points[i].values[axis.name] = axis.values[i];
      points[i].origins[axis.name] = {axis.mark, "zip", false};
    }
  }
  return points;
}

void give(RunDraft& draft, const std::string& key, const nlohmann::json& value, ValueOrigin origin) {
  draft.given[key] = value;
  draft.origins[key] = std::move(origin);
}

// A profile key that names a row (`where`: "profile 'cpu' keep_rows") must name one the spec has.
void require_row(const Spec& spec, const std::string& label, const SourceMark& mark, const std::string& where) {
  const bool known = std::any_of(spec.rows.begin(), spec.rows.end(), [&](const RowSpec& row) { return row.label == label; });
  if (known) return;
  std::vector<std::string> labels;
  for (const auto& row : spec.rows) labels.push_back(row.label);
  throw SpecError({Diagnostic::at(mark, fmt::format("{} names row '{}', which the spec does not have{}", where, label,
                                                    did_you_mean(label, labels)))});
}

}  // namespace

std::vector<std::string> axis_names(const Spec& spec) {
  std::vector<std::string> names;
  for (const auto& axis : spec.grid) names.push_back(axis.name);
  for (const auto& axis : spec.zip) names.push_back(axis.name);
  // The learning rate and the seed name every run, unless a grid already swept them (once is enough).
  for (const char* always : {"lr", "seed"}) {
    if (std::find(names.begin(), names.end(), always) == names.end()) names.push_back(always);
  }
  return names;
}

bool profile_runs_row(const Spec& spec, const std::string& profile, const std::string& label) {
  const auto overlay = spec.profiles.find(profile);
  if (overlay == spec.profiles.end() || !overlay->second.keep_rows) return true;
  const auto& kept = *overlay->second.keep_rows;
  return std::find(kept.begin(), kept.end(), label) != kept.end();
}

std::vector<RunDraft> expand_spec(const Spec& spec, const std::string& profile) {
  ProfileOverlay overlay;
  if (auto it = spec.profiles.find(profile); it != spec.profiles.end()) overlay = it->second;
  Axes grid = spec.grid;
  for (const auto& axis : overlay.grid) {
    auto it = std::find_if(grid.begin(), grid.end(), [&](const Axis& a) { return a.name == axis.name; });
    if (it == grid.end()) {
      grid.push_back(axis);
    } else {
      *it = axis;
    }
  }
  const auto seeds = overlay.seeds.value_or(spec.seeds);
  const SourceMark seeds_mark = overlay.seeds ? overlay.seeds_mark : spec.seeds_mark;
  const Axes zip = overlay.zip.value_or(spec.zip);
  const std::string overlay_name = fmt::format("profile '{}'", profile);
  // An empty seed or learning-rate list is no axis: the run takes the parameter's default.
  const std::vector<std::optional<int64_t>> seed_axis =
      seeds.empty() ? std::vector<std::optional<int64_t>>{std::nullopt}
                    : std::vector<std::optional<int64_t>>(seeds.begin(), seeds.end());

  for (const auto& [label, grid] : overlay.row_lr_grids) {
    require_row(spec, label, overlay.row_lr_grid_marks.at(label), overlay_name + " row_lr_grid");
  }
  if (overlay.keep_rows) {
    for (const auto& label : *overlay.keep_rows) require_row(spec, label, overlay.keep_rows_mark, overlay_name + " keep_rows");
  }
  std::vector<RunDraft> drafts;
  for (const auto& row : spec.rows) {
    if (!profile_runs_row(spec, profile, row.label)) continue;
    const std::string row_name = fmt::format("row '{}'", row.label);
    // The profile's grid for this row, else the profile's, else the row's own, else the spec's.
    const auto row_override = overlay.row_lr_grids.find(row.label);
    const bool row_profiled = row_override != overlay.row_lr_grids.end();
    const auto lr_grid = row_profiled      ? row_override->second
                         : overlay.lr_grid ? *overlay.lr_grid
                                           : row.lr_grid.value_or(spec.lr_grid);
    const SourceMark lr_mark = row_profiled      ? overlay.row_lr_grid_marks.at(row.label)
                               : overlay.lr_grid ? overlay.lr_grid_mark
                               : row.lr_grid     ? row.lr_grid_mark
                                                 : spec.lr_grid_mark;
    const std::string lr_where = row_profiled ? overlay_name + " row_lr_grid"
                                 : overlay.lr_grid || !row.lr_grid ? "lr_grid"
                                                                   : row_name + " lr_grid";
    const std::vector<std::optional<double>> lr_axis =
        lr_grid.empty() ? std::vector<std::optional<double>>{std::nullopt}
                        : std::vector<std::optional<double>>(lr_grid.begin(), lr_grid.end());
    for (const auto& grid_point : grid_points(grid)) {
      for (const auto& zip_point : zip_points(zip)) {
        for (const auto& lr : lr_axis) {
          for (const auto& seed : seed_axis) {
            RunDraft draft;
            draft.label = row.label;
            draft.measure = row.measure.empty() ? spec.measure : row.measure;
            draft.row = row.where;
            for (const auto& [key, value] : spec.defaults.items()) {
              give(draft, key, value, {spec.default_marks.at(key), "defaults", true});
            }
            for (const auto& [key, value] : row.parameters.items()) give(draft, key, value, {row.marks.at(key), row_name, false});
            for (const auto* point : {&grid_point, &zip_point}) {
              for (const auto& [key, value] : point->values.items()) give(draft, key, value, point->origins.at(key));
            }
            if (lr) give(draft, "lr", *lr, {lr_mark, lr_where, false});
            if (seed) give(draft, "seed", *seed, {seeds_mark, "seeds", false});
            for (const auto& per : row.per) {
              if (draft.given.contains(per.axis) && draft.given[per.axis] == per.when) {
                give(draft, per.parameter, per.value, {per.mark, row_name + " per " + per.axis, false});
              }
            }
            // The profile wins over everything: it is how a paper-scale spec is rescaled. A replaced value
            // keeps its origin (the spec still chose the parameter); a set value is shared.
            for (const auto& [key, pairs] : overlay.replace.items()) {
              if (!draft.given.contains(key)) continue;
              for (const auto& pair : pairs) {
                if (draft.given[key] == pair[0]) {
                  draft.given[key] = pair[1];
                  break;
                }
              }
            }
            for (const auto& [key, value] : overlay.set.items()) {
              give(draft, key, value, {overlay.set_marks.at(key), overlay_name + " set", true});
            }
            drafts.push_back(std::move(draft));
          }
        }
      }
    }
  }
  return drafts;
}

}  // namespace capaboost::harness
