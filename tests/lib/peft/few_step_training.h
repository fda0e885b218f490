#pragma once
// A tuner's smallest training check: 40 Adam steps (lr 1e-2) on one random batch of a tiny classifier
// (vocabulary 30, two labels), reporting the loss before and after and which parameters moved, so a
// test can require that the loss falls and that exactly the intended parameters changed.

#include <torch/torch.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "models/roberta.h"

namespace capaboost::testing {

struct FewStepTraining {
  double first_loss = 0;
  double last_loss = 0;
  std::set<std::string> changed;  ///< parameter names whose values moved
};

inline FewStepTraining train_few_steps(RobertaForSequenceClassification& model) {
  model->train();
  std::map<std::string, torch::Tensor> start;
  std::vector<torch::Tensor> trained;
  for (const auto& item : model->named_parameters()) {
    start[item.key()] = item.value().detach().clone();
    if (item.value().requires_grad()) trained.push_back(item.value());
  }
  const auto ids = torch::randint(3, 30, {8, 6});    // (B, T)
  const auto labels = torch::randint(0, 2, {8});     // (B)
  torch::optim::Adam optimizer(trained, torch::optim::AdamOptions(1e-2));
  FewStepTraining result;
  for (int step = 0; step < 40; ++step) {
    optimizer.zero_grad();
    const auto loss = torch::nn::functional::cross_entropy(model->forward(ids).logits, labels);
    loss.backward();
    optimizer.step();
    (step == 0 ? result.first_loss : result.last_loss) = loss.item<double>();
  }
  for (const auto& item : model->named_parameters()) {
    if (!torch::equal(item.value(), start.at(item.key()))) result.changed.insert(item.key());
  }
  return result;
}

}  // namespace capaboost::testing
