#include "peft/peft_lora_format.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "checkpoint/safetensors.h"
#include "checkpoint/state_dict.h"
#include "models/pretrained_directory.h"
#include "peft/lora.h"
#include "sites/site_registry.h"
#include "util/atomic_file.h"

namespace capaboost {

namespace {

constexpr const char* kConfigFile = "adapter_config.json";
constexpr const char* kWeightsFile = "adapter_model.safetensors";

std::string strip_trailing_dot(const std::string& prefix) {
  return !prefix.empty() && prefix.back() == '.' ? prefix.substr(0, prefix.size() - 1) : prefix;
}

// Every tuner of `model` with the site it adapts ("….query" for "….query.lora"); the LoRA among them, or null.
std::vector<std::pair<std::string, LoraImpl*>> sites_and_loras(torch::nn::Module& model) {
  std::vector<std::pair<std::string, LoraImpl*>> found;
  for (const auto& [name, tuner] : find_tuners(model)) {
    found.emplace_back(name.substr(0, name.size() - tuner->kind().size() - 1), dynamic_cast<LoraImpl*>(tuner.get()));
  }
  return found;
}

// The parameters under the head prefixes, by PEFT's names.
std::map<std::string, torch::Tensor> head_tensors(torch::nn::Module& model, const std::vector<std::string>& head_prefixes) {
  const std::map<std::string, torch::Tensor> tensors = state_dict(model);
  std::map<std::string, torch::Tensor> head;
  for (const auto& prefix : head_prefixes) {
    for (const auto& name : names_under(model, prefix)) head[kPeftModelPrefix + name] = tensors.at(name);
  }
  return head;
}

// An integral α is written as an integer, as PEFT's configs carry it (lora_alpha: int).
nlohmann::json number(double value) {
  if (value == static_cast<double>(static_cast<int64_t>(value))) return static_cast<int64_t>(value);
  return value;
}

}  // namespace

PeftLoraAdapter peft_lora_adapter(torch::nn::Module& model, const std::vector<std::string>& head_prefixes,
                                  const std::string& base_model, const std::string& task_type) {
  PeftLoraAdapter adapter;
  std::vector<std::string> sites;
  const LoraImpl* first = nullptr;
  for (const auto& [site, lora] : sites_and_loras(model)) {
    TORCH_CHECK(lora != nullptr, "PEFT LoRA export: the tuner at '", site,
                "' is not LoRA; only LoRA and CapaBoost-LoRA runs export as a PEFT LoRA adapter");
    const int64_t branches = lora->options.capaboost().branches();
    if (first == nullptr) first = lora;
    TORCH_CHECK(lora->options.rank() == first->options.rank() && lora->options.alpha() == first->options.alpha() &&
                    branches == first->options.capaboost().branches(),
                "PEFT LoRA export: the LoRA at '", site, "' differs from the first one in rank, alpha or branches; "
                "one adapter_config.json cannot describe both");
    torch::NoGradGuard no_grad;
    // The factors the model evaluates with: (d·r, in) and (out, d·r), masks applied.
    auto [a_cat, b_cat] = lora->stacked_factors(/*training=*/false);
    adapter.tensors[kPeftModelPrefix + site + ".lora_A.weight"] = a_cat.detach().to(torch::kFloat32).contiguous();
    adapter.tensors[kPeftModelPrefix + site + ".lora_B.weight"] = b_cat.detach().to(torch::kFloat32).contiguous();
    sites.push_back(site);
  }
  TORCH_CHECK(first != nullptr, "PEFT LoRA export: the model carries no LoRA tuner");

  std::vector<std::string> modules_to_save;
  for (const auto& prefix : head_prefixes) modules_to_save.push_back(strip_trailing_dot(prefix));
  for (const auto& [name, tensor] : head_tensors(model, head_prefixes)) {
    adapter.tensors[name] = tensor.detach().to(torch::kFloat32).contiguous();
  }

  const int64_t branches = first->options.capaboost().branches();
  adapter.config = {
      {"peft_type", "LORA"},
      {"task_type", task_type},
      {"base_model_name_or_path", base_model},
      {"r", first->options.rank() * branches},
      {"lora_alpha", number(first->options.alpha() * static_cast<double>(branches))},
      {"lora_dropout", first->options.dropout()},
      // Full site names: PEFT selects a module whose name equals an entry, so exactly these sites.
      {"target_modules", sites},
      {"modules_to_save", modules_to_save},
      {"bias", "none"},
      {"fan_in_fan_out", false},
      {"inference_mode", true},
      {"init_lora_weights", true},
      {"use_rslora", false},
      {"layers_to_transform", nullptr},
      {"layers_pattern", nullptr},
      {"rank_pattern", nlohmann::json::object()},
      {"alpha_pattern", nlohmann::json::object()},
      {"revision", nullptr},
  };
  return adapter;
}

void save_peft_lora_adapter(const PeftLoraAdapter& adapter, const std::string& directory) {
  std::filesystem::create_directories(directory);
  save_safetensors((std::filesystem::path(directory) / kWeightsFile).string(), adapter.tensors);
  write_file_atomically((std::filesystem::path(directory) / kConfigFile).string(), adapter.config.dump(2) + "\n");
}

std::vector<std::string> load_peft_lora_adapter(torch::nn::Module& model, const std::string& directory) {
  const std::string config_path = (std::filesystem::path(directory) / kConfigFile).string();
  const std::string weights_path = (std::filesystem::path(directory) / kWeightsFile).string();
  std::ifstream config_file(config_path);
  TORCH_CHECK(config_file.good(), config_path, ": cannot read the adapter config (is '", directory,
              "' a PEFT adapter directory?)");
  nlohmann::json config;
  try {
    config = nlohmann::json::parse(config_file);
  } catch (const nlohmann::json::exception& error) {
    TORCH_CHECK(false, config_path, ": not valid JSON: ", error.what());
  }
  const auto field = [&](const char* key) -> const nlohmann::json& {
    TORCH_CHECK(config.contains(key), config_path, ": the field '", key, "' is missing");
    return config.at(key);
  };
  const auto flag_off = [&](const char* key) {
    TORCH_CHECK(!config.contains(key) || config.at(key).is_null() || config.at(key) == false ||
                    ((config.at(key).is_object() || config.at(key).is_array()) && config.at(key).empty()),
                config_path, ": '", key, "' is set; this suite's LoRA does not compute it, so the adapter would "
                "give other outputs here");
  };
  TORCH_CHECK(field("peft_type") == "LORA", config_path, ": peft_type is ", field("peft_type").dump(),
              "; only LORA adapters load");
  // PEFT 0.21's LoraConfig fields that change what the adapter computes or where it goes (variants of
  // the update, per-site patterns, other parameters or layers than the target modules'); the
  // initialisation-only ones (eva_config, corda_config, loftq_config, …) leave a saved adapter plain.
  for (const char* key : {"use_rslora", "use_dora", "fan_in_fan_out", "rank_pattern", "alpha_pattern",
                          "layers_to_transform", "exclude_modules", "lora_bias", "alora_invocation_tokens",
                          "use_qalora", "use_bdlora", "kasa_config", "monteclora_config", "arrow_config",
                          "layer_replication", "target_parameters", "trainable_token_indices"}) {
    flag_off(key);
  }
  // PiSSA, OLoRA, CorDA, LoftQ and LoRA-GA initialisations change the base weights: such an adapter fits
  // its residual base, not the checkpoint it names (unless PEFT converted it on saving, which writes
  // init_lora_weights true).
  if (config.contains("init_lora_weights") && config.at("init_lora_weights").is_string()) {
    const auto init = config.at("init_lora_weights").get<std::string>();
    for (const char* residual : {"pissa", "olora", "corda", "loftq", "lora_ga"}) {
      TORCH_CHECK(init.rfind(residual, 0) != 0, config_path, ": init_lora_weights is \"", init,
                  "\": the adapter was made for a base whose weights PEFT changed at initialisation, so it would "
                  "give other outputs on the checkpoint here; save it with PEFT's "
                  "path_initial_model_for_weight_conversion to load it");
    }
  }
  TORCH_CHECK(!config.contains("bias") || config.at("bias") == "none", config_path, ": bias is ",
              config.at("bias").dump(), "; only bias \"none\" loads (LoRA here trains no biases)");

  // A field of the wrong JSON type is an error naming the file and the field, not nlohmann's type_error.
  const auto typed = [&](const char* key, const nlohmann::json& value, const char* what) {
    TORCH_CHECK(false, config_path, ": '", key, "' must be ", what, ", got ", value.dump());
  };
  SiteSelector selector;
  const nlohmann::json& targets = field("target_modules");
  if (targets.is_string()) {
    selector.regex = targets.get<std::string>();
    try {
      const std::regex compiled(*selector.regex);
    } catch (const std::regex_error& error) {
      TORCH_CHECK(false, config_path, ": target_modules \"", *selector.regex, "\" is not a valid regex (", error.what(),
                  ")");
    }
  } else {
    TORCH_CHECK(targets.is_array(), config_path, ": target_modules must be a list of names or a regex");
    for (const auto& target : targets) {
      if (!target.is_string()) typed("target_modules", targets, "a list of names (strings) or a regex");
      selector.suffixes.push_back(target.get<std::string>());
    }
  }
  if (!field("r").is_number_integer()) typed("r", field("r"), "an integer");
  if (!field("lora_alpha").is_number()) typed("lora_alpha", field("lora_alpha"), "a number");
  const auto rank = field("r").get<int64_t>();
  const auto alpha = field("lora_alpha").get<double>();
  double dropout = 0.0;
  if (config.contains("lora_dropout") && !config.at("lora_dropout").is_null()) {
    if (!config.at("lora_dropout").is_number()) typed("lora_dropout", config.at("lora_dropout"), "a number");
    dropout = config.at("lora_dropout").get<double>();
  }
  const auto options = LoraOptions(rank).alpha(alpha).dropout(dropout);

  // r sizes every factor attached below: it must be the rank the file's factors have (lora_A is (r, in)),
  // read from the header before anything is allocated, so that a damaged r cannot ask for more memory
  // than the file's own tensors take.
  const SafetensorsFile weights(weights_path);
  bool has_factor = false;
  for (const auto& name : weights.names()) {
    const std::string suffix = ".lora_A.weight";
    if (name.size() < suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    const c10::IntArrayRef shape = weights.entry(name).shape;
    TORCH_CHECK(shape.size() == 2 && shape[0] == rank, weights_path, ": '", name, "' has shape ", shape, " where r = ",
                rank, " (", config_path, ") needs (", rank, ", in); the two files do not belong together");
    has_factor = true;
  }
  TORCH_CHECK(has_factor, weights_path, ": holds no '<site>.lora_A.weight' tensor; not a LoRA adapter's weights");
  const std::vector<std::string> sites =
      attach_tuners(model, selector, [&](const std::string& site, const TunableLinearImpl& layer) -> SiteTunerPtr {
        return std::make_shared<LoraImpl>(options, site, layer.options.in_features(), layer.options.out_features());
      });

  // Every tensor of the file has one destination, and every destination one tensor.
  std::map<std::string, torch::Tensor> destinations;
  for (const auto& [site, lora] : sites_and_loras(model)) {
    if (lora == nullptr) continue;
    destinations[kPeftModelPrefix + site + ".lora_A.weight"] = lora->A;
    destinations[kPeftModelPrefix + site + ".lora_B.weight"] = lora->B;
  }
  // PEFT's task models save their head whatever modules_to_save says: PeftModelForSequenceClassification
  // adds "classifier" and "score", PeftModelForQuestionAnswering "qa_outputs".
  std::vector<std::string> head_prefixes;
  const nlohmann::json saved = config.value("modules_to_save", nlohmann::json::array());
  if (saved.is_array()) {
    for (const auto& module : saved) {
      if (!module.is_string()) typed("modules_to_save", saved, "a list of module names (strings)");
      head_prefixes.push_back(module.get<std::string>() + ".");
    }
  }
  const std::string task_type =
      config.contains("task_type") && config.at("task_type").is_string() ? config.at("task_type").get<std::string>() : "";
  if (task_type == "SEQ_CLS") head_prefixes.insert(head_prefixes.end(), {"classifier.", "score."});
  if (task_type == "QUESTION_ANS") head_prefixes.push_back("qa_outputs.");
  destinations.merge(head_tensors(model, head_prefixes));

  std::vector<std::string> unexpected, missing;
  for (const auto& name : weights.names()) {
    if (!destinations.count(name)) unexpected.push_back(name);
  }
  for (const auto& [name, tensor] : destinations) {
    if (!weights.contains(name)) missing.push_back(name);
  }
  TORCH_CHECK(unexpected.empty() && missing.empty(), weights_path, ": the adapter's tensors do not fit the model ",
              "its config describes; unexpected: ", fmt::format("{}", fmt::join(unexpected, ", ")),
              "; missing: ", fmt::format("{}", fmt::join(missing, ", ")));
  torch::NoGradGuard no_grad;
  for (auto& [name, destination] : destinations) {
    const torch::Tensor source = weights.tensor(name);
    TORCH_CHECK(source.sizes() == destination.sizes(), weights_path, ": '", name, "' has shape ", source.sizes(),
                " where the model needs ", destination.sizes());
    destination.copy_(source);
  }
  return sites;
}

}  // namespace capaboost
