#include "plan/plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "measures/measure_registry.h"
#include "params/resolution.h"
#include "plan/expansion.h"
#include "plan/run_key.h"
#include "util/closest_match.h"

namespace capaboost::harness {
namespace {

// "measure finetune with method lora and task RTE": what a run's parameters come from.
std::string plugins_of(const std::string& measure, const Resolution& resolution) {
  std::vector<std::string> selected;
  for (const auto& def : resolution.definitions) {
    if (def.selected_parameters && resolution.config.contains(def.name)) {
      selected.push_back(fmt::format("{} {}", def.name, resolution.config.at(def.name).get<std::string>()));
    }
  }
  return selected.empty() ? "measure " + measure
                          : fmt::format("measure {} with {}", measure, fmt::join(selected, " and "));
}

// The measures the spec's rows run, the spec's own first.
std::vector<std::string> row_measures(const Spec& spec) {
  std::vector<std::string> measures{spec.measure};
  for (const auto& row : spec.rows) {
    if (!row.measure.empty() && std::find(measures.begin(), measures.end(), row.measure) == measures.end()) {
      measures.push_back(row.measure);
    }
  }
  return measures;
}

// Report fields that name a metric none of the spec's measures records: an empty column or figure only
// after every run had finished, found now instead.
std::vector<Diagnostic> unknown_metrics(const Spec& spec, const std::vector<std::string>& measures) {
  std::vector<const MeasureSpec*> declared;
  std::vector<std::string> names;
  for (const auto& name : measures) {
    const MeasureSpec& measure = find_measure(name);
    declared.push_back(&measure);
    for (const auto& def : measure.metrics) names.push_back(def.name);
  }
  std::vector<Diagnostic> diagnostics;
  for (const auto& reference : spec.metric_references) {
    const bool known = std::any_of(declared.begin(), declared.end(), [&](const MeasureSpec* measure) {
      return declares_metric(*measure, reference.metric);
    });
    if (known) continue;
    diagnostics.push_back(Diagnostic::at(
        reference.mark, fmt::format("{} names '{}', which measure {} does not record{}; `capaboost measures` lists "
                                    "each measure's metrics",
                                    reference.where, reference.metric, fmt::join(measures, " or "),
                                    did_you_mean(reference.metric, names))));
  }
  return diagnostics;
}

}  // namespace

Resolved resolve_runs(const Spec& spec, const std::string& profile, const DataFingerprint& data,
                      const ModelFingerprint& model) {
  Resolved resolved;
  std::set<std::string> seen;
  std::map<std::string, ParameterList> parameters_of;  // measure → what its runs take, built once
  for (const RunDraft& draft : expand_spec(spec, profile)) {
    auto parameters = parameters_of.find(draft.measure);
    if (parameters == parameters_of.end()) {
      parameters = parameters_of.emplace(draft.measure, run_parameters(find_measure(draft.measure))).first;
    }
    const Resolution resolution = resolve_parameters(parameters->second, draft.given);
    const std::string row = fmt::format("row '{}'", draft.label);
    for (const auto& problem : resolution.problems) {
      const auto origin = draft.origins.find(problem.parameter);
      if (origin != draft.origins.end()) {
        resolved.diagnostics.push_back(Diagnostic::at(origin->second.mark, problem.message));
      } else {
        resolved.diagnostics.push_back(Diagnostic::at(draft.row, row + ": " + problem.message));
      }
    }
    // Shared values (defaults, a profile's set) apply where the run takes them and are dropped elsewhere;
    // an explicit one the run does not take is a mistake.
    bool explicit_unused = false;
    for (const auto& name : resolution.unused) {
      const ValueOrigin& origin = draft.origins.at(name);
      if (origin.shared || resolution.incomplete) continue;
      std::vector<std::string> applicable;
      for (const auto& def : resolution.definitions) applicable.push_back(def.name);
      resolved.diagnostics.push_back(Diagnostic::at(
          origin.mark, fmt::format("'{}'{} does not apply to {}: {} takes no such parameter{}", name,
                                   origin.where == row ? "" : " (from " + origin.where + ")", row,
                                   plugins_of(draft.measure, resolution), did_you_mean(name, applicable))));
      explicit_unused = true;
    }
    if (!resolution.problems.empty() || explicit_unused) continue;
    for (const auto& [name, origin] : draft.origins) {
      if (origin.where == "defaults" && resolution.config.contains(name)) resolved.used_defaults.insert(name);
    }
    RunConfig run;
    run.label = draft.label;
    run.measure = draft.measure;
    run.config = resolution.config;
    for (const auto& def : resolution.definitions) {
      if (!def.keyed_at_default && run.config.contains(def.name) && run.config[def.name] == def.fallback) {
        run.unkeyed.push_back(def.name);
      }
    }
    run.data_fingerprint = data ? data(run.config) : "none";
    if (model) run.model_fingerprint = model(run.config);
    run.key = run_key(run);
    if (seen.insert(run.key + "|" + run.label).second) resolved.runs.push_back(std::move(run));
  }
  return resolved;
}

Spec load_checked_spec(const std::string& path) {
  std::vector<Diagnostic> diagnostics;
  Spec spec = load_spec(path, diagnostics);
  const bool loaded = diagnostics.empty();
  // A spec with problems still gets its runs checked when its measure and rows could be read: all
  // problems at once. Values that did not load are missing from the runs, not reported twice.
  std::set<std::string> used;
  const auto known_measures = measure_names();
  if (!spec.rows.empty() && std::find(known_measures.begin(), known_measures.end(), spec.measure) != known_measures.end()) {
    for (const auto& profile : profile_names()) {
      if (!spec_has_profile(spec, profile)) continue;
      Resolved resolved = resolve_runs(spec, profile);
      diagnostics.insert(diagnostics.end(), resolved.diagnostics.begin(), resolved.diagnostics.end());
      used.insert(resolved.used_defaults.begin(), resolved.used_defaults.end());
    }
  }
  std::vector<std::string> measures;
  for (const auto& name : row_measures(spec)) {
    if (std::find(known_measures.begin(), known_measures.end(), name) != known_measures.end()) measures.push_back(name);
  }
  if (!measures.empty()) {
    const auto unknown = unknown_metrics(spec, measures);
    diagnostics.insert(diagnostics.end(), unknown.begin(), unknown.end());
  }
  if (loaded && diagnostics.empty()) {
    for (const auto& [name, value] : spec.defaults.items()) {
      if (!used.count(name)) {
        diagnostics.push_back(Diagnostic::at(
            spec.default_marks.at(name),
            fmt::format("'{}' in defaults applies to no run: no row's measure ({}), method or task takes it", name,
                        fmt::join(row_measures(spec), ", "))));
      }
    }
  }
  if (!diagnostics.empty()) throw SpecError(tidy(std::move(diagnostics)));
  return spec;
}

std::vector<RunConfig> plan_runs(const Spec& spec, const std::string& profile, const DataFingerprint& data,
                                 const ModelFingerprint& model) {
  if (!spec_has_profile(spec, profile)) {
    throw SpecError({Diagnostic{spec.file, 0, 0,
                                fmt::format("this spec has no '{}' profile: {} runs only the specs that scale themselves "
                                            "for it (their own profiles: {}: entry); run this one with --profile mini, "
                                            "or add the entry",
                                            profile, profile, profile)}});
  }
  Resolved resolved = resolve_runs(spec, profile, data, model);
  if (!resolved.diagnostics.empty()) throw SpecError(tidy(std::move(resolved.diagnostics)));
  return std::move(resolved.runs);
}

}  // namespace capaboost::harness
