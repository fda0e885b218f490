// `capaboost squad-eval DATA.json PREDICTIONS.json [--na-probs NA.json] [--na-threshold T]`: what the
// official evaluation script of the data file's version prints (evaluate-v1.1.py or evaluate-v2.0.py),
// so that numbers from the suite and from anyone else's SQuAD code are read the same way.

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

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

// {"id": "answer text", …}
SquadPredictions read_predictions(const std::string& path) {
  const auto json = read_json(path, "predictions");
  if (!json.is_object()) throw std::runtime_error(path + ": predictions must be {\"question id\": \"answer\", …}");
  SquadPredictions predictions;
  for (const auto& [id, text] : json.items()) {
    if (!text.is_string()) throw std::runtime_error(fmt::format("{}: the prediction for '{}' is not a string", path, id));
    predictions[id] = text.get<std::string>();
  }
  return predictions;
}

// {"id": probability, …}, in file order.
SquadNoAnswerProbabilities read_na_probs(const std::string& path) {
  const auto json = read_json(path, "no-answer probabilities");
  if (!json.is_object()) throw std::runtime_error(path + ": no-answer probabilities must be {\"question id\": p, …}");
  SquadNoAnswerProbabilities probabilities;
  for (const auto& [id, p] : json.items()) {
    if (!p.is_number()) throw std::runtime_error(fmt::format("{}: the probability for '{}' is not a number", path, id));
    probabilities.emplace_back(id, p.get<double>());
  }
  return probabilities;
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
            const SquadPredictions predictions = read_predictions(options->predictions);
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
              if (!options->na_probs.empty()) na_probs = read_na_probs(options->na_probs);
              fmt::print("{}\n", format_squad_evaluation(
                                     evaluate_squad_v2(dataset, predictions, na_probs, options->na_threshold), 2));
            }
            return 0;
          }};
}

}  // namespace capaboost::harness
