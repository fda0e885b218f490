#include "train/train_result.h"

namespace capaboost {

namespace {

nlohmann::json metrics_json(const MetricValues& metrics) {
  nlohmann::json json = nlohmann::json::object();
  for (const auto& [name, value] : metrics) json[name] = value;
  return json;
}

}  // namespace

std::string to_string(TrainStatus status) { return status == TrainStatus::kOk ? "ok" : "diverged"; }

nlohmann::json TrainResult::to_json() const {
  nlohmann::json json;
  json["status"] = to_string(status);
  if (!failure.empty()) json["failure"] = failure;
  json["best_epoch"] = best_epoch;
  json["eval_score"] = eval_score;
  json["test_score"] = test_score;
  json["test"] = metrics_json(test);
  nlohmann::json epochs_json = nlohmann::json::array();
  for (const auto& epoch : epochs) {
    epochs_json.push_back({{"epoch", epoch.epoch},
                           {"train_loss", epoch.train_loss},
                           {"eval", metrics_json(epoch.eval)},
                           {"eval_score", epoch.eval_score},
                           {"test", metrics_json(epoch.test)},
                           {"test_score", epoch.test_score},
                           {"seconds", epoch.seconds},
                           {"train_tokens", epoch.train_tokens},
                           {"train_examples", epoch.train_examples}});
    if (epoch.eval_loss) epochs_json.back()["eval_loss"] = *epoch.eval_loss;
  }
  json["epochs"] = epochs_json;
  json["parameters"] = {{"backbone", parameters.backbone},
                        {"tuner_dense", parameters.tuner_dense},
                        {"tuner_effective", parameters.tuner_effective},
                        {"head", parameters.head},
                        {"backbone_trained", parameters.backbone_trained},
                        {"trainable", parameters.trainable},
                        {"tuner_dense_percent", parameters.backbone > 0 ? parameters.tuner_dense_percent() : 0.0},
                        {"tuner_effective_percent",
                         parameters.backbone > 0 ? parameters.tuner_effective_percent() : 0.0},
                        {"fine_tuned_percent", parameters.backbone > 0 ? parameters.fine_tuned_percent() : 0.0}};
  json["site_ranks"] = site_ranks.to_json();
  json["steps"] = steps;
  json["data_order_sha256"] = data_order_sha256;
  json["wall_seconds"] = wall_seconds;
  json["train_tokens_per_second"] = train_tokens_per_second;
  json["train_examples_per_second"] = train_examples_per_second;
  json["eval_tokens_per_second"] = eval_tokens_per_second;
  json["eval_examples_per_second"] = eval_examples_per_second;
  json["peak_rss_mib"] = peak_rss_mib;
  if (!method_summary.empty()) json["method_summary"] = method_summary;
  return json;
}

}  // namespace capaboost
