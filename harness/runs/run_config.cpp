#include "runs/run_config.h"

#include "data/sha256.h"

#include <fmt/format.h>

#include <set>

namespace capaboost::harness {
namespace {

std::string value_text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// Cartesian product of the grid axes, as a list of partial parameter objects.
std::vector<nlohmann::json> grid_points(const Axes& grid) {
  std::vector<nlohmann::json> points{nlohmann::json::object()};
  for (const auto& [name, values] : grid) {
    std::vector<nlohmann::json> next;
    for (const auto& point : points) {
      for (const auto& value : values) {
        auto extended = point;
        extended[name] = value;
        next.push_back(extended);
      }
    }
    points = std::move(next);
  }
  return points;
}

std::vector<nlohmann::json> zip_points(const Axes& zip) {
  if (zip.empty()) return {nlohmann::json::object()};
  std::vector<nlohmann::json> points(zip.front().second.size(), nlohmann::json::object());
  for (const auto& [name, values] : zip) {
    for (size_t i = 0; i < points.size() && i < values.size(); ++i) points[i][name] = values[i];
  }
  return points;
}

}  // namespace

std::string RunConfig::display_name(const std::vector<std::string>& names) const {
  std::string text = label;
  for (const auto& name : names) {
    if (parameters.contains(name)) text += fmt::format(" {}={}", name, value_text(parameters.at(name)));
  }
  return text;
}

std::string canonical_run_text(const RunConfig& run) {
  // nlohmann::json objects keep keys sorted, so dump() is canonical.
  nlohmann::json canonical = {{"measure", run.measure},
                              {"parameters", run.parameters},
                              {"code_version", kCodeVersion},
                              {"data", run.data_fingerprint}};
  if (!run.model_fingerprint.empty()) canonical["model"] = run.model_fingerprint;
  return canonical.dump();
}

std::vector<std::string> axis_names(const Spec& spec) {
  std::vector<std::string> names;
  for (const auto& axis : spec.grid) names.push_back(axis.first);
  for (const auto& axis : spec.zip) names.push_back(axis.first);
  names.push_back("lr");
  names.push_back("seed");
  return names;
}

std::vector<RunConfig> expand_spec(const Spec& spec, const std::string& profile, const DataFingerprint& fingerprint,
                                   const ModelFingerprint& model_fingerprint) {
  ProfileOverlay overlay;
  if (auto it = spec.profiles.find(profile); it != spec.profiles.end()) overlay = it->second;
  Axes grid = spec.grid;
  for (const auto& axis : overlay.grid) {
    auto it = std::find_if(grid.begin(), grid.end(), [&](const auto& a) { return a.first == axis.first; });
    if (it == grid.end()) {
      grid.push_back(axis);
    } else {
      it->second = axis.second;
    }
  }
  const auto seeds = overlay.seeds.value_or(spec.seeds);
  const auto lr_grid = overlay.lr_grid.value_or(spec.lr_grid);
  const Axes zip = overlay.zip.value_or(spec.zip);

  std::vector<RunConfig> runs;
  std::set<std::string> seen;
  for (const auto& row : spec.rows) {
    for (const auto& grid_point : grid_points(grid)) {
      for (const auto& zip_point : zip_points(zip)) {
        const std::vector<double> lrs = lr_grid.empty() ? std::vector<double>{-1.0} : lr_grid;
        for (double lr : lrs) {
          for (int64_t seed : seeds) {
            RunConfig run;
            run.label = row.label;
            run.measure = spec.measure;
            auto& p = run.parameters;
            for (const auto* part : {&spec.defaults, &row.parameters, &grid_point, &zip_point}) {
              for (auto& [key, value] : part->items()) p[key] = value;
            }
            if (lr > 0) p["lr"] = lr;
            p["seed"] = seed;
            // The profile wins over everything: it is how a paper-scale spec is rescaled.
            for (auto& [key, pairs] : overlay.replace.items()) {
              if (!p.contains(key)) continue;
              for (const auto& pair : pairs) {
                if (p[key] == pair[0]) {
                  p[key] = pair[1];
                  break;
                }
              }
            }
            for (auto& [key, value] : overlay.set.items()) p[key] = value;
            run.data_fingerprint = fingerprint ? fingerprint(p) : "none";
            if (model_fingerprint) run.model_fingerprint = model_fingerprint(p);
            run.key = capaboost::sha256_hex(canonical_run_text(run));
            if (seen.insert(run.key + "|" + run.label).second) runs.push_back(std::move(run));
          }
        }
      }
    }
  }
  return runs;
}

}  // namespace capaboost::harness
