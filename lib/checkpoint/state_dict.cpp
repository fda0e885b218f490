#include "checkpoint/state_dict.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <regex>
#include <set>


namespace capaboost {
namespace {

bool matches_any(const std::vector<std::regex>& patterns, const std::string& name) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::regex& pattern) { return std::regex_match(name, pattern); });
}

std::vector<std::regex> compile(const std::vector<std::string>& patterns) {
  std::vector<std::regex> compiled;
  for (const auto& pattern : patterns) compiled.emplace_back(pattern);
  return compiled;
}

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

// Module name each file tensor goes to, following Hugging Face's base-model-prefix rule.
std::map<std::string, std::string> map_file_names(const std::vector<std::string>& file_names,
                                                  const std::map<std::string, torch::Tensor>& module_tensors,
                                                  const std::string& prefix) {
  std::map<std::string, std::string> mapped;
  const auto any_prefixed = [&](auto begin, auto end, auto key) {
    return !prefix.empty() &&
           std::any_of(begin, end, [&](const auto& item) { return starts_with(key(item), prefix); });
  };
  const bool module_prefixed =
      any_prefixed(module_tensors.begin(), module_tensors.end(), [](const auto& item) { return item.first; });
  const bool file_prefixed =
      any_prefixed(file_names.begin(), file_names.end(), [](const std::string& name) { return name; });
  for (const auto& name : file_names) {
    if (module_prefixed && !file_prefixed) {
      mapped[name] = prefix + name;
    } else if (!module_prefixed && file_prefixed && starts_with(name, prefix)) {
      mapped[name] = name.substr(prefix.size());
    } else {
      mapped[name] = name;
    }
  }
  return mapped;
}

}  // namespace

std::string LoadReport::describe() const {
  return fmt::format("missing: [{}]; unexpected: [{}]", fmt::join(missing, ", "),
                     fmt::join(unexpected, ", "));
}

std::map<std::string, torch::Tensor> state_dict(torch::nn::Module& module, const std::vector<std::string>& excluded) {
  const std::set<std::string> skip(excluded.begin(), excluded.end());
  std::map<std::string, torch::Tensor> tensors;
  for (const auto& item : module.named_parameters()) {
    if (!skip.count(item.key())) tensors.emplace(item.key(), item.value());
  }
  for (const auto& item : module.named_buffers()) {
    if (!skip.count(item.key())) tensors.emplace(item.key(), item.value());
  }
  return tensors;
}

void LoadReport::add_missing(const std::vector<std::string>& names) {
  missing.insert(missing.end(), names.begin(), names.end());
  std::sort(missing.begin(), missing.end());
  missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
}

namespace {

/// Where load_state_dict reads from: the tensors' names, their shapes and dtypes without reading them,
/// and the tensors themselves; `source` names it in messages ("safetensors file 'x'").
struct TensorSource {
  std::string source;
  std::vector<std::string> names;
  std::function<std::pair<std::vector<int64_t>, torch::ScalarType>(const std::string&)> header;
  std::function<torch::Tensor(const std::string&)> tensor;
};

LoadReport load_from(torch::nn::Module& module, const TensorSource& from, const StateDictLoadOptions& options) {
  auto targets = state_dict(module, options.exclude());
  const auto ignore = compile(options.ignore());
  const auto allow_missing = compile(options.allow_missing());
  const auto allow_unexpected = compile(options.allow_unexpected());
  const auto mapped = map_file_names(from.names, targets, options.base_prefix());

  // Match and check everything first, so a failed load leaves the module untouched.
  LoadReport report;
  std::vector<std::string> disallowed_unexpected;
  std::vector<std::pair<torch::Tensor, std::string>> copies;  // (destination, source name)
  std::set<std::string> filled;
  for (const auto& [file_name, module_name] : mapped) {
    if (matches_any(ignore, file_name)) {
      report.ignored.push_back(file_name);
      continue;
    }
    const auto target = targets.find(module_name);
    if (target == targets.end()) {
      report.unexpected.push_back(file_name);
      if (!matches_any(allow_unexpected, file_name)) disallowed_unexpected.push_back(file_name);
      continue;
    }
    const auto [shape, dtype] = from.header(file_name);
    const auto& destination = target->second;
    TORCH_CHECK(destination.sizes() == torch::IntArrayRef(shape), from.source, ": tensor '", file_name,
                "' has shape ", torch::IntArrayRef(shape), " but the model's '", module_name, "' has shape ",
                destination.sizes(), " (checkpoint and config disagree)");
    TORCH_CHECK(c10::isFloatingType(dtype) == destination.is_floating_point(), from.source, ": tensor '", file_name,
                "' is ", dtype, " but the model's '", module_name, "' is ", destination.scalar_type());
    copies.emplace_back(destination, file_name);
    filled.insert(module_name);
    report.loaded.push_back(module_name);
  }
  std::vector<std::string> disallowed_missing;
  for (const auto& [name, tensor] : targets) {
    if (filled.count(name)) continue;
    report.missing.push_back(name);
    if (!matches_any(allow_missing, name)) disallowed_missing.push_back(name);
  }
  TORCH_CHECK(disallowed_missing.empty() && disallowed_unexpected.empty(), from.source,
              " does not match the model: missing: [", fmt::format("{}", fmt::join(disallowed_missing, ", ")),
              "]; unexpected: [", fmt::format("{}", fmt::join(disallowed_unexpected, ", ")), "]");

  torch::NoGradGuard no_grad;
  for (auto& [destination, name] : copies) destination.copy_(from.tensor(name));
  return report;
}

}  // namespace

LoadReport load_state_dict(torch::nn::Module& module, const SafetensorsFile& file,
                           const StateDictLoadOptions& options) {
  TensorSource from;
  from.source = "safetensors file '" + file.path() + "'";
  from.names = file.names();
  from.header = [&file](const std::string& name) {
    const auto& entry = file.entry(name);
    return std::make_pair(entry.shape, entry.dtype);
  };
  from.tensor = [&file](const std::string& name) { return file.tensor(name); };
  return load_from(module, from, options);
}

LoadReport load_state_dict(torch::nn::Module& module, const std::map<std::string, torch::Tensor>& tensors,
                           const std::string& source, const StateDictLoadOptions& options) {
  TensorSource from;
  from.source = source;
  for (const auto& item : tensors) from.names.push_back(item.first);
  from.header = [&tensors](const std::string& name) {
    const auto& tensor = tensors.at(name);
    return std::make_pair(tensor.sizes().vec(), tensor.scalar_type());
  };
  from.tensor = [&tensors](const std::string& name) { return tensors.at(name); };
  return load_from(module, from, options);
}

void save_state_dict(torch::nn::Module& module, const std::string& path, const std::vector<std::string>& excluded) {
  save_safetensors(path, state_dict(module, excluded));
}

std::vector<std::string> names_under(torch::nn::Module& module, const std::string& prefix) {
  std::vector<std::string> names;
  for (const auto& item : module.named_parameters()) {
    if (item.key().rfind(prefix, 0) == 0) names.push_back(item.key());
  }
  for (const auto& item : module.named_buffers()) {
    if (item.key().rfind(prefix, 0) == 0) names.push_back(item.key());
  }
  return names;
}

}  // namespace capaboost
