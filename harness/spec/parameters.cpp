#include "spec/parameters.h"

#include "peft/method_registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

namespace capaboost::harness {
namespace {

std::vector<ParameterDef> make_definitions() {
  using T = ParameterType;
  // GLUE names as the paper's tables print them, so that a `columns: task` table lines up with the
  // paper-numbers files.
  const std::vector<std::string> tasks{"CoLA", "SST-2", "SST-2-10k", "MRPC", "STS-B", "RTE", "QNLI", "QQP", "MNLI",
                                       "SQuAD-v1.1", "SQuAD-v2.0", "none"};
  return {
      {"model", T::kString, "backbone: a known name or a Hugging Face-layout checkpoint directory", {}, false, {}, {}},
      {"method", T::kString, "PEFT method (see `capaboost methods`)", {}, false, {}, {}, capaboost::method_names},
      {"targets", T::kStringList, "site-name suffixes the method attaches to", {}, false, {}, {}},
      {"target_regex", T::kString, "regex the whole site name must match", {}, false, {}, {}},
      {"rank", T::kInt, "LoRA rank r", 1, false, 4096, {}},
      {"alpha", T::kNumber, "LoRA alpha (scale alpha/r)", 0, true, {}, {}},
      {"alpha_over_rank", T::kNumber, "LoRA alpha as a multiple of r", 0, true, {}, {}},
      {"lora_init", T::kString, "LoRA A initialisation", {}, false, {}, {"peft", "reference"}},
      {"lora_dropout", T::kNumber, "dropout on the LoRA input", 0, false, 0.99, {}},
      {"bottleneck", T::kInt, "adapter bottleneck size", 1, false, 65536, {}},
      {"activation", T::kString, "adapter nonlinearity", {}, false, {}, {"relu", "gelu", "swish"}},
      {"branches", T::kInt, "CapaBoost d, the number of weight-tied branches", 1, false, 64, {}},
      {"density", T::kNumber, "kept fraction of each CapaBoost mask", 0, true, 1, {}},
      {"mask", T::kString, "CapaBoost mask kind", {}, false, {}, {"none", "diff", "same", "dropout", "nm"}},
      {"nm", T::kString, "N:M pattern of the nm mask, e.g. '2:4'", {}, false, {}, {}},
      {"mask_seed", T::kInt, "seed of the CapaBoost masks", 0, false, {}, {}},
      {"task", T::kString, "dataset / task", {}, false, {}, tasks},
      {"protocol", T::kString, "evaluation split protocol", {}, false, {}, {"propetl", "adalora"}},
      {"lr", T::kNumber, "peak learning rate", 0, true, 1, {}},
      {"epochs", T::kInt, "training epochs", 1, false, 10000, {}},
      {"batch_size", T::kInt, "training batch size", 1, false, 65536, {}},
      {"max_length", T::kInt, "maximum tokens per example", 8, false, 65536, {}},
      {"weight_decay", T::kNumber, "AdamW weight decay", 0, false, 10, {}},
      {"warmup_ratio", T::kNumber, "fraction of steps for linear warm-up", 0, false, 1, {}},
      {"grad_clip", T::kNumber, "gradient-norm clipping (0: off)", 0, false, {}, {}},
      {"train_limit", T::kInt, "use at most this many training examples (0: all)", 0, false, {}, {}},
      {"seed", T::kInt, "run seed (weights of new modules, data order, dropout)", 0, false, {}, {}},
      {"trials", T::kInt, "Monte Carlo trials (theorem measurements)", 1, false, 1000000, {}},
      {"dim", T::kInt, "matrix size n (theorem measurements)", 1, false, 100000, {}},
  };
}

std::string type_name(ParameterType type) {
  switch (type) {
    case ParameterType::kInt: return "an integer";
    case ParameterType::kNumber: return "a number";
    case ParameterType::kString: return "a string";
    case ParameterType::kBool: return "true or false";
    case ParameterType::kStringList: return "a list of strings";
  }
  return "?";
}

}  // namespace

const std::vector<ParameterDef>& run_parameters() {
  static const std::vector<ParameterDef> definitions = make_definitions();
  return definitions;
}

const ParameterDef* find_parameter(const std::string& name) {
  for (const auto& def : run_parameters()) {
    if (def.name == name) return &def;
  }
  return nullptr;
}

std::vector<std::string> run_parameter_names() {
  std::vector<std::string> names;
  for (const auto& def : run_parameters()) names.push_back(def.name);
  return names;
}

Diagnostic diagnostic_at(const std::string& file, const YAML::Node& node, std::string message) {
  const auto mark = node.Mark();
  return {file, mark.is_null() ? 0 : mark.line + 1, mark.is_null() ? 0 : mark.column + 1, std::move(message)};
}

std::optional<nlohmann::json> convert_parameter(const ParameterDef& def, const YAML::Node& node,
                                                const std::string& file, std::vector<Diagnostic>& diagnostics) {
  auto wrong_type = [&] {
    diagnostics.push_back(diagnostic_at(file, node, fmt::format("'{}' must be {} ({})", def.name,
                                                                type_name(def.type), def.help)));
    return std::nullopt;
  };
  nlohmann::json value;
  switch (def.type) {
    case ParameterType::kInt: {
      int64_t v = 0;
      if (!node.IsScalar() || !YAML::convert<int64_t>::decode(node, v)) return wrong_type();
      value = v;
      break;
    }
    case ParameterType::kNumber: {
      double v = 0;
      if (!node.IsScalar() || !YAML::convert<double>::decode(node, v) || !std::isfinite(v)) return wrong_type();
      value = v;
      break;
    }
    case ParameterType::kBool: {
      bool v = false;
      if (!node.IsScalar() || !YAML::convert<bool>::decode(node, v)) return wrong_type();
      value = v;
      break;
    }
    case ParameterType::kString:
      if (!node.IsScalar()) return wrong_type();
      value = node.Scalar();
      break;
    case ParameterType::kStringList: {
      if (!node.IsSequence()) return wrong_type();
      std::vector<std::string> items;
      for (const auto& item : node) {
        if (!item.IsScalar()) return wrong_type();
        items.push_back(item.Scalar());
      }
      value = items;
      break;
    }
  }
  if (value.is_number()) {
    const double v = value.get<double>();
    const bool below = def.min && (def.min_exclusive ? v <= *def.min : v < *def.min);
    const bool above = def.max && v > *def.max;
    if (below || above) {
      diagnostics.push_back(diagnostic_at(
          file, node,
          fmt::format("'{}' = {} is out of range: must be {} {}{}", def.name, node.Scalar(),
                      def.min_exclusive ? ">" : ">=", def.min.value_or(-INFINITY),
                      def.max ? fmt::format(" and <= {}", *def.max) : std::string())));
      return std::nullopt;
    }
  }
  const auto choices = def.choices_source ? def.choices_source() : def.choices;
  if (value.is_string() && !choices.empty()) {
    const auto& text = value.get_ref<const std::string&>();
    if (std::find(choices.begin(), choices.end(), text) == choices.end()) {
      diagnostics.push_back(diagnostic_at(file, node,
                                          fmt::format("unknown {} '{}'{}; choose one of: {}", def.name, text,
                                                      did_you_mean(text, choices), fmt::join(choices, ", "))));
      return std::nullopt;
    }
  }
  return value;
}

}  // namespace capaboost::harness
