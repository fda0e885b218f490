#pragma once
// An offline pre-trained encoder, built once and cached: corpus → tokenizer → MLM pre-training →
// a Hugging Face model directory (config.json, model.safetensors, the tokenizer files, pretrain.json).
//
//   auto dir = ensure_backbone("mini");   // builds on the first call, a cache hit afterwards
//   auto backbone = load_checkpoint(dir, head);   // RoBERTa or DeBERTa-v2 layout, by config.json
//
// The directory is <cache>/backbones/<profile>-<key12>, key = SHA-256 of everything the weights depend
// on (corpus manifest digest, tokenizer options, model config, block and pre-training options, seed,
// kBackboneCodeVersion). A build runs in a temporary sibling directory renamed into place at the end,
// so a killed build never leaves a directory that looks complete.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pretrain/distributional_embeddings.h"
#include "pretrain/encoder_shape.h"
#include "pretrain/mlm_pretrainer.h"
#include "pretrain/text_blocks.h"
#include "tokenizers/tokenizer.h"

namespace capaboost {

/// Bump when a code change alters what a recipe produces, so old cache entries stop matching.
inline constexpr const char* kBackboneCodeVersion = "roberta-mlm-backbone/1";

/// Where backbones and their inputs live.
struct BackboneEnvironment {
  /// Root of the cache: backbones/, corpus/ below it.
  std::string cache_root;
  /// npm prefix holding the corpus source packages.
  std::string npm_prefix;
  /// GLUE data root, read by recipes that pre-train on task text (BackboneRecipe::task_text).
  std::string data_root;

  /// cache_root = $CAPABOOST_CACHE, else $HOME/.cache/capaboost; npm_prefix = <cache_root>/npm;
  /// data_root = $CAPABOOST_DATA_DIR, else ../shared/data (the harness's rule).
  static BackboneEnvironment from_environment();
  /// `cache_root` given, npm_prefix = <cache_root>/npm, data_root as from_environment().
  static BackboneEnvironment at(const std::string& cache_root);
};

/// The text a backbone is pre-trained on (one sentence or paragraph per line).
struct CorpusText {
  std::string train_path;
  std::string heldout_path;
  nlohmann::json manifest;      ///< what the corpus was built from (recorded in pretrain.json)
  std::string manifest_sha256;  ///< identifies the corpus (task text included) in the cache key
  /// Extra MLM training text (BackboneRecipe::task_text), one unit per line: packed into blocks after
  /// train_path's and read by the word vectors, but neither the tokenizer's text nor held out. Empty =
  /// none.
  std::string task_text_path;
};

/// How a backbone's inputs are produced: the real corpus and SentencePiece trainer for the named
/// profiles (corpus_backbone_stages), small fixtures in tests.
struct BackboneStages {
  /// Writes (or reuses) the corpus under the given directory.
  std::function<CorpusText(const std::string& corpus_dir)> build_corpus;
  /// Trains a tokenizer on the training text and writes its files into the given directory (they ship
  /// inside the backbone directory).
  std::function<void(const std::string& train_text, const std::string& out_dir)> train_tokenizer;
  /// Loads the tokenizer train_tokenizer wrote.
  std::function<std::shared_ptr<Tokenizer>(const std::string& dir)> load_tokenizer;
};

/// Everything that fixes a backbone's weights.
struct BackboneRecipe {
  /// Name used in the directory name ("mini", "mini-deberta", "smoke").
  std::string profile;
  /// Names the corpus directory (<cache>/corpus/<corpus_name>-<hash of corpus_options>), so recipes
  /// with the same corpus options share one corpus; empty = `profile`.
  std::string corpus_name;
  /// Options of the corpus stage as canonical JSON (key and corpus directory name).
  nlohmann::json corpus_options = nlohmann::json::object();
  /// Options of the tokenizer stage as canonical JSON.
  nlohmann::json tokenizer_options = nlohmann::json::object();
  /// The encoder's architecture, shape and regularisation; vocab_size and pad_token_id come from the
  /// trained tokenizer, max_position_embeddings from the block size (sized_encoder).
  EncoderShape model = roberta_options();
  TextBlockOptions train_blocks;
  /// Held-out blocks encoded (block_size is train_blocks'; max_blocks bounds the evaluation cost).
  int64_t heldout_max_blocks = 0;
  double mlm_probability = 0.15;
  /// GLUE tasks whose train-split sentences join the MLM training text (task-adaptive pre-training):
  /// the tokenizer and the held-out evaluation stay the corpus's, so recipes with and without task text
  /// are judged on the same held-out targets. Dev files are never read (they hold every test half).
  /// Empty = none, and then absent from key_material, so existing keys are unchanged.
  std::vector<std::string> task_text;
  /// When set, the word embeddings start from PPMI-SVD vectors of the training blocks (scaled to the
  /// random initialisation's standard deviation) instead of random ones; dim must be the hidden size.
  std::optional<DistributionalEmbeddingOptions> embedding_init;
  MlmPretrainOptions pretrain;

  /// The model options actually built for a tokenizer of `vocab_size` ids padded with `pad_id`.
  EncoderShape model_options(int64_t vocab_size, int64_t pad_id) const;
  /// Everything hashed into the cache key, given the corpus manifest digest.
  nlohmann::json key_material(const std::string& manifest_sha256) const;
};

/// Builds the backbone of `recipe` unless a complete one with the same key exists; returns its directory.
std::string ensure_backbone(const BackboneRecipe& recipe, const BackboneStages& stages,
                            const BackboneEnvironment& env);
/// The complete backbone directory of `recipe` if it exists; never trains (the corpus stage runs, since its
/// manifest digest is part of the key).
std::optional<std::string> find_backbone(const BackboneRecipe& recipe, const BackboneStages& stages,
                                         const BackboneEnvironment& env);

/// The named profile's recipe (backbone_recipes.h) built with the real corpus and SentencePiece stages.
std::string ensure_backbone(const std::string& profile,
                            const BackboneEnvironment& env = BackboneEnvironment::from_environment());
std::optional<std::string> find_backbone(
    const std::string& profile, const BackboneEnvironment& env = BackboneEnvironment::from_environment());

/// File names inside a backbone directory besides config.json and model.safetensors.
inline constexpr const char* kPretrainRecordFileName = "pretrain.json";

/// True when `dir` holds config.json, model.safetensors and a pretrain.json whose "key" is `key`.
bool is_complete_backbone(const std::filesystem::path& dir, const std::string& key);

/// Makes `dir` a complete backbone for `key` unless it is one: `build` writes into a temporary sibling
/// (pretrain.json with "key" last), which is renamed into place; a killed build leaves only a temporary
/// directory, removed by the next build once its process is gone. Any recipe's builder uses it. Returns
/// false when `dir` was complete already (nothing built).
bool build_cached_directory(const std::filesystem::path& dir, const std::string& key,
                            const std::function<void(const std::filesystem::path& tmp)>& build);

}  // namespace capaboost
