#include "backbones/backbone_registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "util/registry.h"

namespace capaboost {
namespace {

namespace fs = std::filesystem;

Registry<BackboneSpec>& backbones() {
  static Registry<BackboneSpec> registry("backbone");
  return registry;
}

Registry<ArchitectureSpec>& architectures() {
  static Registry<ArchitectureSpec> registry("checkpoint architecture (config.json model_type)");
  return registry;
}

std::string model_type_of(const fs::path& directory) {
  const fs::path config = directory / "config.json";
  std::ifstream in(config);
  TORCH_CHECK(in, "cannot read ", config.string());
  nlohmann::json parsed;
  try {
    parsed = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    TORCH_CHECK(false, config.string(), " is not valid JSON (", e.what(), "); re-download the checkpoint");
  }
  TORCH_CHECK(parsed.contains("model_type") && parsed["model_type"].is_string(), config.string(),
              " has no \"model_type\"; the suite loads checkpoints of: ",
              fmt::format("{}", fmt::join(architecture_names(), ", ")));
  return parsed["model_type"].get<std::string>();
}

const ArchitectureSpec& architecture_of(const std::string& directory) {
  const std::string type = model_type_of(directory);
  const ArchitectureSpec* architecture = architectures().find_if_present(type);
  TORCH_CHECK(architecture, "checkpoint ", directory, " is a '", type, "' model; the suite loads checkpoints of: ",
              fmt::format("{}", fmt::join(architecture_names(), ", ")));
  return *architecture;
}

fs::path checkpoint_root() {
  if (const char* env = std::getenv("CAPABOOST_CHECKPOINTS"); env != nullptr && *env != '\0') return env;
  const char* home = std::getenv("HOME");
  return fs::path(home != nullptr ? home : ".") / ".cache" / "capaboost" / "checkpoints";
}

}  // namespace

bool register_backbone(BackboneSpec backbone) {
  TORCH_CHECK(backbone.load, "register_backbone: backbone '", backbone.name, "' has no load function");
  backbones().add(std::move(backbone));
  return true;
}

bool register_architecture(ArchitectureSpec architecture) {
  TORCH_CHECK(architecture.load && architecture.load_random, "register_architecture: '", architecture.name,
              "' needs both load functions (pre-trained and randomly initialised)");
  architectures().add(std::move(architecture));
  return true;
}

std::vector<std::string> backbone_names() { return backbones().names(); }

std::vector<std::string> architecture_names() { return architectures().names(); }

Backbone load_backbone(const std::string& model, const TaskHead& head, const BackboneContext& context) {
  if (const BackboneSpec* named = backbones().find_if_present(model)) return named->load(head, context);
  TORCH_CHECK(fs::exists(fs::path(model) / "config.json"), "unknown model '", model, "': ", check_backbone_name(model));
  return load_checkpoint(model, head);
}

Backbone load_checkpoint(const std::string& directory, const TaskHead& head) {
  return architecture_of(directory).load(directory, head);
}

Backbone load_checkpoint_randomly_initialised(const std::string& directory, const TaskHead& head) {
  return architecture_of(directory).load_random(directory, head);
}

void prepare_backbone(const std::string& model, const BackboneContext& context) {
  const BackboneSpec* named = backbones().find_if_present(model);
  if (named && named->prepare) named->prepare(context);
}

std::string backbone_fingerprint(const std::string& model) {
  const BackboneSpec* named = backbones().find_if_present(model);
  return named && named->fingerprint ? named->fingerprint() : "";
}

std::string downloaded_checkpoint(const std::string& name, const std::string& repo,
                                  const std::vector<std::string>& files, const std::string& fetch_command) {
  const fs::path dir = checkpoint_root() / name;
  const std::string fetch = !fetch_command.empty()
                                ? "`" + fetch_command + "` installs it"
                                : fmt::format("with internet: `huggingface-cli download {} {} --local-dir {}`", repo,
                                              fmt::join(files, " "), dir.string());
  TORCH_CHECK(fs::exists(dir / "config.json"), "model '", name, "' needs its pre-trained checkpoint in ", dir.string(),
              " (", fmt::format("{}", fmt::join(files, ", ")), "); ", fetch,
              ", or set CAPABOOST_CHECKPOINTS to the folder that holds it. Offline, use model: mini.");
  return dir.string();
}

std::string downloaded_checkpoint_file(const std::string& name, const std::string& file,
                                       const std::string& fetch_command) {
  const fs::path path = checkpoint_root() / name / file;
  TORCH_CHECK(fs::exists(path), "model '", name, "' needs its pre-trained checkpoint ", path.string(), "; `",
              fetch_command, "` installs it, or set CAPABOOST_CHECKPOINTS to the folder that holds ", name, "/",
              file, ". Offline, use model: mini.");
  return path.string();
}

std::string check_backbone_name(const std::string& model) {
  if (backbones().find_if_present(model) || fs::exists(fs::path(model) / "config.json")) return "";
  const auto names = backbone_names();
  return fmt::format("not one of the named backbones ({}){} and not a directory with config.json (a Hugging "
                     "Face-layout checkpoint)",
                     fmt::join(names, ", "), did_you_mean(model, names));
}

}  // namespace capaboost
