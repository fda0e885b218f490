#pragma once
// The backbones a run's `model:` can name, as plugins: named backbones (`roberta-base`, `mini`, …)
// and checkpoint architectures (a Hugging Face-layout directory is loaded by the architecture its
// config.json's `model_type` names). A new backbone family registers its loader from its own file;
// the trainer and the measures only see the task model it returns (models/task_model.h).
//
//   Backbone backbone = load_backbone("mini", TaskHead{TaskHead::Kind::kSequenceClassification, 2}, context);

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/task_model.h"

namespace capaboost {

/// Where backbones find their files.
struct BackboneContext {
  /// The resolved data root; randomly initialised RoBERTa shapes take roberta-base's tokenizer from
  /// <root>/tokenizers/roberta-base.
  std::string data_root;
};

/// A backbone with a fresh task head, and what turns examples into its inputs.
struct Backbone {
  TaskModelPtr model;
  InputProcessor processor;
  bool pretrained = false;
  std::string description;  ///< for logs and run records: what was loaded from where
  /// The Hugging Face-layout directory the weights came from; empty for random weights and one-file
  /// checkpoints.
  std::string checkpoint_directory;
  /// The one file the weights came from when it is not <checkpoint_directory>/model.safetensors (a GGUF
  /// file); empty otherwise. Run records carry its SHA-256.
  std::string weights_file;
};

/// A named backbone.
struct BackboneSpec {
  std::string name;
  std::string description;
  /// Builds it with `head`; random weights come from the current torch seed.
  std::function<Backbone(const TaskHead& head, const BackboneContext& context)> load;
  /// The identity of weights the suite builds itself (its recipe), so run keys change with the recipe;
  /// nullptr when the name identifies the weights.
  std::function<std::string()> fingerprint = nullptr;
  /// Makes the files `load` reads where the suite builds them itself (pre-training an offline encoder
  /// into the cache), so a sweep builds them once before its workers start; nullptr when there is
  /// nothing to build.
  std::function<void(const BackboneContext& context)> prepare = nullptr;
};

/// Loads Hugging Face-layout checkpoint directories whose config.json says `model_type: <name>`.
struct ArchitectureSpec {
  std::string name;  ///< the model_type ("roberta")
  /// The checkpoint's weights with a fresh `head` and the tokenizer beside it.
  std::function<Backbone(const std::string& directory, const TaskHead& head)> load;
  /// The checkpoint's architecture and tokenizer with random weights (from the current torch seed).
  std::function<Backbone(const std::string& directory, const TaskHead& head)> load_random;
};

bool register_backbone(BackboneSpec backbone);
bool register_architecture(ArchitectureSpec architecture);
std::vector<std::string> backbone_names();
std::vector<std::string> architecture_names();

/// `model` as a named backbone, else as a checkpoint directory (by its model_type). Unknown names that
/// are not checkpoint directories are an error listing the known names.
Backbone load_backbone(const std::string& model, const TaskHead& head, const BackboneContext& context);

/// The checkpoint in `directory`, by the architecture its config.json's model_type names.
Backbone load_checkpoint(const std::string& directory, const TaskHead& head);
/// The architecture and tokenizer of the checkpoint in `directory`, with random weights: the baseline
/// that shows what its pre-training buys.
Backbone load_checkpoint_randomly_initialised(const std::string& directory, const TaskHead& head);

/// Builds what the named backbone `model` loads, if the suite makes it and the cache lacks it (its
/// `prepare`); nothing for every other model. With all threads, before a sweep's workers start.
void prepare_backbone(const std::string& model, const BackboneContext& context);

/// The recipe fingerprint of a named backbone the suite builds itself; "" for every other model.
std::string backbone_fingerprint(const std::string& model);

/// Where the downloaded Hugging Face checkpoint `name` (hub id `repo`) lives: $CAPABOOST_CHECKPOINTS/<name>,
/// default ~/.cache/capaboost/checkpoints/<name>. Fails, naming the `files` to download and the command
/// that does it (`fetch_command`, else a huggingface-cli download of `repo`), when the directory has no
/// config.json: nothing is downloaded at run time.
std::string downloaded_checkpoint(const std::string& name, const std::string& repo,
                                  const std::vector<std::string>& files, const std::string& fetch_command = "");

/// Where the downloaded one-file checkpoint `file` of `name` lives: $CAPABOOST_CHECKPOINTS/<name>/<file>
/// (default ~/.cache/capaboost/checkpoints/<name>/<file>). Fails naming `fetch_command` when it is not
/// there: nothing is downloaded at run time.
std::string downloaded_checkpoint_file(const std::string& name, const std::string& file,
                                       const std::string& fetch_command);

/// "" when `model` is a registered name or a directory with config.json; otherwise what is wrong.
std::string check_backbone_name(const std::string& model);

}  // namespace capaboost
