#include "report/regime.h"

#include "plan/expansion.h"
#include "report/aggregate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

namespace capaboost::harness {
namespace {

// One profile's runs as the regime sees them: each run's given parameters.
struct RegimeFacts {
  std::set<std::string> models;
  std::set<double> epochs;
  std::set<int64_t> seeds;
  size_t rates = 0;  ///< the most learning rates any row setting is run with (0: the measure takes none)
};

RegimeFacts facts_of(const std::vector<nlohmann::json>& configs, const std::vector<std::string>& labels) {
  RegimeFacts facts;
  std::map<std::string, std::set<double>> rates;  // a row's setting without seed and lr → its rates
  for (size_t i = 0; i < configs.size(); ++i) {
    const auto& config = configs[i];
    if (const auto model = config.find("model"); model != config.end() && model->is_string()) {
      facts.models.insert(model->get<std::string>());
    }
    if (const auto epochs = config.find("epochs"); epochs != config.end() && epochs->is_number()) {
      facts.epochs.insert(epochs->get<double>());
    }
    if (const auto seed = config.find("seed"); seed != config.end() && seed->is_number_integer()) {
      facts.seeds.insert(seed->get<int64_t>());
    }
    if (const auto lr = config.find("lr"); lr != config.end() && lr->is_number()) {
      nlohmann::json setting = config;
      setting.erase("lr");
      setting.erase("seed");
      rates[labels[i] + setting.dump()].insert(lr->get<double>());
    }
  }
  for (const auto& [setting, values] : rates) facts.rates = std::max(facts.rates, values.size());
  return facts;
}

std::string range_text(const std::set<double>& values) {
  if (values.empty()) return "";
  const auto number = [](double v) { return fmt::format("{:g}", v); };
  return values.size() == 1 ? number(*values.begin())
                            : fmt::format("{}–{}", number(*values.begin()), number(*values.rbegin()));
}

std::string seeds_text(const std::set<int64_t>& seeds) {
  if (seeds.empty()) return "";
  const bool consecutive = *seeds.rbegin() - *seeds.begin() + 1 == static_cast<int64_t>(seeds.size());
  if (seeds.size() > 2 && consecutive) return fmt::format("{}–{}", *seeds.begin(), *seeds.rbegin());
  return fmt::format("{}", fmt::join(seeds, ", "));
}

std::string rate_text(size_t rates) {
  return rates > 1 ? fmt::format("chosen on eval from {}", rates) : "fixed per row";
}

}  // namespace

Regime describe_regime(const Spec& spec, const std::vector<RunConfig>& runs, const std::string& profile) {
  Regime regime;
  if (runs.empty()) return regime;
  std::vector<nlohmann::json> configs;
  std::vector<std::string> labels;
  for (const auto& run : runs) {
    configs.push_back(run.config);
    labels.push_back(run.label);
  }
  const RegimeFacts ours = facts_of(configs, labels);
  // The paper's regime of the same rows: a profile whose keep_rows runs three of seventeen is compared
  // with what the paper runs for those three (Table 4's full fine-tuning takes other epochs).
  const std::set<std::string> ours_rows(labels.begin(), labels.end());
  configs.clear();
  labels.clear();
  const auto drafts = expand_spec(spec, "paper");
  const bool shared_rows = std::any_of(drafts.begin(), drafts.end(), [&](const auto& d) { return ours_rows.count(d.label) > 0; });
  for (const auto& draft : drafts) {
    if (shared_rows && !ours_rows.count(draft.label)) continue;
    configs.push_back(draft.given);
    labels.push_back(draft.label);
  }
  const RegimeFacts paper = facts_of(configs, labels);

  std::vector<std::string> parts, differences;
  const auto part = [&](const std::string& name, const std::string& mine, const std::string& theirs,
                        const std::string& difference) {
    if (mine.empty()) return;
    const bool differs = profile != "paper" && !theirs.empty() && mine != theirs;
    parts.push_back(differs ? fmt::format("{} {} (paper: {})", name, mine, theirs) : fmt::format("{} {}", name, mine));
    if (differs && !difference.empty()) differences.push_back(difference);
  };
  const std::string models = fmt::format("{}", fmt::join(ours.models, ", "));
  part("backbone", models, fmt::format("{}", fmt::join(paper.models, ", ")), models);
  const std::string epochs = range_text(ours.epochs);
  part("epochs", epochs, range_text(paper.epochs), fmt::format("{} of {} epochs", epochs, range_text(paper.epochs)));
  // A table whose columns are learning rates shows every rate: nothing is chosen or fixed behind it.
  const bool rate_is_axis = (spec.table && spec.table->columns == "lr") ||
                            std::any_of(spec.grid.begin(), spec.grid.end(), [](const Axis& axis) { return axis.name == "lr"; });
  if (rate_is_axis) {
    parts.push_back("learning rate: the table's columns");
  } else if (ours.rates > 0) {
    // Fewer rates than the paper's grid, or none: the verdict names it; more tuning than the paper's is
    // said in the line only.
    const std::string difference = ours.rates <= 1                                      ? "rate not tuned"
                                   : paper.rates > ours.rates ? fmt::format("rate from {} of {}", ours.rates, paper.rates)
                                                              : "";
    part("learning rate", rate_text(ours.rates), paper.rates > 0 ? rate_text(paper.rates) : "", difference);
  }
  // Seeds are in the line, not the verdict: every interval already says how many pairs it rests on.
  part("seeds", seeds_text(ours.seeds), seeds_text(paper.seeds), "");
  if (parts.empty()) return regime;
  regime.line = fmt::format("Regime of these verdicts (profile {}): {}.{}", profile, fmt::join(parts, "; "),
                            differences.empty() ? "" : " A verdict here holds in this regime, not in the paper's.");
  regime.verdict_suffix = fmt::format("{}", fmt::join(differences, ", "));
  return regime;
}

}  // namespace capaboost::harness
