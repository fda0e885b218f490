// `capaboost squad-eval DATA.json PREDICTIONS.json [--na-probs NA.json] [--na-threshold T]`: what the
// official evaluation script of the data file's version prints (evaluate-v1.1.py or evaluate-v2.0.py),
// so that numbers from the suite and from anyone else's SQuAD code are read the same way.

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "commands/commands.h"
#include "data/squad_dataset.h"
#include "metrics/squad_evaluation.h"

namespace capaboost::harness {
namespace {

nlohmann::ordered_json read_json(const std::string& path, const char* what) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("cannot open the {} file {}", what, path));
  try {
    return nlohmann::ordered_json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(fmt::format("{}: the {} file is not valid JSON ({})", path, what, e.what()));
  }
}

// {"question id": value, …} in file order; every value a string (answers) or a number (probabilities).
template <typename Value>
std::vector<std::pair<std::string, Value>> read_by_id(const std::string& path, const char* what) {
  constexpr bool text = std::is_same_v<Value, std::string>;
  const auto json = read_json(path, what);
  if (!json.is_object()) {
    throw std::runtime_error(fmt::format("{}: {} must be {{\"question id\": {}, …}}", path, what, text ? "\"text\"" : "p"));
  }
  std::vector<std::pair<std::string, Value>> values;
  for (const auto& [id, value] : json.items()) {
    if (text ? !value.is_string() : !value.is_number()) {
      throw std::runtime_error(fmt::format("{}: the value for '{}' is not a {}", path, id, text ? "string" : "number"));
    }
    values.emplace_back(id, value.template get<Value>());
  }
  return values;
}

}  // namespace

Command squad_eval_command(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "squad-eval", "Score SQuAD predictions exactly as the official script of the data file's version (v1.1 or v2.0)");
  struct Options {
    std::string data, predictions, na_probs;
    double na_threshold = 1.0;
  };
  auto options = std::make_shared<Options>();
  sub->add_option("data", options->data, "SQuAD data file (official nested or Hugging Face flat layout)")->required();
  sub->add_option("predictions", options->predictions, "predictions: {\"question id\": \"answer text\", …}")->required();
  sub->add_option("--na-probs", options->na_probs,
                  "v2.0: no-answer probabilities {\"question id\": p, …}; adds best_exact/best_f1, oracle numbers "
                  "(their thresholds are chosen on this file)");
  sub->add_option("--na-threshold", options->na_threshold,
                  "v2.0: predict no answer when the probability exceeds this (the script's --na-prob-thresh)")
      ->capture_default_str();
  return {sub, [options] {
            const SquadDataset dataset = load_squad(options->data);
            const auto answers = read_by_id<std::string>(options->predictions, "predictions");
            const SquadPredictions predictions(answers.begin(), answers.end());
            if (dataset.major_version == 1) {
              if (!options->na_probs.empty()) {
                throw std::runtime_error("--na-probs is for SQuAD v2.0 files; " + options->data + " is version " +
                                         dataset.version);
              }
              if (dataset.version != "1.1") {
                fmt::print(stderr, "Evaluation expects v-1.1, but got dataset with v-{}\n", dataset.version);
              }
              std::vector<std::string> unanswered;
              const auto evaluation = evaluate_squad_v1(dataset, predictions, &unanswered);
              for (const auto& id : unanswered) fmt::print(stderr, "Unanswered question {} will receive score 0.\n", id);
              fmt::print("{}\n", format_squad_evaluation(evaluation, 1));
            } else {
              std::optional<SquadNoAnswerProbabilities> na_probs;
              if (!options->na_probs.empty()) na_probs = read_by_id<double>(options->na_probs, "no-answer probabilities");
              fmt::print("{}\n", format_squad_evaluation(
                                     evaluate_squad_v2(dataset, predictions, na_probs, options->na_threshold), 2));
            }
            return 0;
          }};
}

}  // namespace capaboost::harness
