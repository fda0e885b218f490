// The `full` method: full fine-tuning. It attaches nothing; every backbone parameter trains.

#include "peft/method_registry.h"

namespace capaboost {
namespace {

[[maybe_unused]] const bool registered_full_finetuning_method = register_method(
    {"full", "full fine-tuning: every backbone parameter and the head train", {},
     [](torch::nn::Module&, const Parameters&) { return std::vector<std::string>{}; },
     [](const std::string&) { return true; }, "all"});

}  // namespace
}  // namespace capaboost
