#include "pretrain/backbone_builder.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "data/data_root.h"
#include "util/atomic_file.h"
#include "util/sha256.h"
#include "models/pretrained_directory.h"
#include "pretrain/backbone_recipes.h"
#include "pretrain/corpus_stages.h"

namespace capaboost {
namespace fs = std::filesystem;
namespace {

constexpr const char* kTempPrefix = ".tmp-";

std::string short_key(const std::string& key) { return key.substr(0, 12); }

fs::path backbones_dir(const BackboneEnvironment& env) { return fs::path(env.cache_root) / "backbones"; }

// The corpus directory depends on the corpus options only; the corpus stage decides about reuse.
fs::path corpus_dir(const BackboneRecipe& recipe, const BackboneEnvironment& env) {
  return fs::path(env.cache_root) / "corpus" /
         fmt::format("{}-{}", recipe.corpus_name.empty() ? recipe.profile : recipe.corpus_name, short_key(sha256_hex(recipe.corpus_options.dump())));
}

std::string backbone_key(const BackboneRecipe& recipe, const CorpusText& corpus) {
  return sha256_hex(recipe.key_material(corpus.manifest_sha256).dump());
}

// Removes temporary build directories of `name` left by builds whose process is gone (killed); a
// build still running elsewhere keeps its own.
void remove_abandoned_builds(const fs::path& parent, const std::string& name) {
  if (!fs::is_directory(parent)) return;
  const std::string prefix = std::string(kTempPrefix) + name + "-";
  for (const auto& entry : fs::directory_iterator(parent)) {
    const auto file = entry.path().filename().string();
    if (file.rfind(prefix, 0) != 0) continue;
    const auto pid = std::strtol(file.c_str() + prefix.size(), nullptr, 10);
    const bool alive = pid > 0 && ::kill(static_cast<pid_t>(pid), 0) == 0;
    if (!alive) fs::remove_all(entry.path());
  }
}

// Copies `vectors` (V, C) into the rows of `embeddings` they cover (non-zero rows), rescaled so that
// their standard deviation is the random initialisation's: the embedding LayerNorm then sees word (and,
// in RoBERTa, position) embeddings in the same proportion as in a randomly initialised model.
void start_word_embeddings_from(torch::nn::EmbeddingImpl& embeddings, const torch::Tensor& vectors,
                                double initializer_range) {
  torch::NoGradGuard no_grad;
  auto& weight = embeddings.weight;  // (V, C)
  TORCH_CHECK(vectors.sizes() == weight.sizes(), "word vectors ", vectors.sizes(),
              " do not match the embedding matrix ", weight.sizes());
  const auto covered = vectors.abs().sum(1).gt(0);  // (V)
  TORCH_CHECK(covered.any().item<bool>(), "word vectors: every row is 0 (is the training text empty?)");
  const auto scale = initializer_range / vectors.index({covered}).std().item<double>();
  weight.copy_(torch::where(covered.unsqueeze(1), vectors * scale, weight));
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void say(const BackboneRecipe& recipe, const std::string& message) {
  if (recipe.pretrain.show_progress()) fmt::print(stderr, "backbone {}: {}\n", recipe.profile, message);
}

// Trains into `tmp` and records everything in pretrain.json (written last).
void build_into(const fs::path& tmp, const BackboneRecipe& recipe, const BackboneStages& stages,
                const CorpusText& corpus, const std::string& key, double corpus_seconds) {
  const auto start = std::chrono::steady_clock::now();
  say(recipe, "training the tokenizer");
  stages.train_tokenizer(corpus.train_path, tmp.string());
  const auto tokenizer = stages.load_tokenizer(tmp.string());
  const double tokenizer_seconds = seconds_since(start);

  say(recipe, "encoding the corpus");
  const auto encode_start = std::chrono::steady_clock::now();
  auto train = encode_text_blocks(*tokenizer, corpus.train_path, recipe.train_blocks);
  // Task text is packed on its own (no block mixes corpus and task sentences) and appended: the
  // pre-trainer draws blocks in a seeded random order, so where they sit does not matter.
  int64_t task_text_lines = 0, task_text_blocks = 0;
  if (!corpus.task_text_path.empty()) {
    const auto task = encode_text_blocks(*tokenizer, corpus.task_text_path, recipe.train_blocks);
    task_text_lines = task.lines;
    task_text_blocks = task.ids.size(0);
    train.ids = torch::cat({train.ids, task.ids});  // (N_corpus + N_task, block_size)
    train.lines += task.lines;
    train.tokens += task.tokens;
  }
  const auto heldout = encode_text_blocks(
      *tokenizer, corpus.heldout_path,
      TextBlockOptions().block_size(recipe.train_blocks.block_size()).max_blocks(recipe.heldout_max_blocks));
  const double encode_seconds = seconds_since(encode_start);
  say(recipe, fmt::format("{} training blocks ({} tokens), {} held-out blocks of {}", train.ids.size(0),
                          train.ids.numel(), heldout.ids.size(0), recipe.train_blocks.block_size()));

  // Seeding before construction makes the initial weights part of what the seed fixes.
  torch::manual_seed(recipe.pretrain.seed());
  const auto model = make_masked_lm(recipe.model_options(tokenizer->vocab_size(), tokenizer->pad_id()));
  double embedding_seconds = 0.0;
  if (recipe.embedding_init) {
    say(recipe, "word vectors from co-occurrence statistics (PPMI-SVD)");
    const auto embedding_start = std::chrono::steady_clock::now();
    start_word_embeddings_from(*model->word_embeddings(),
                               distributional_embeddings(train.ids, tokenizer->vocab_size(),
                                                         tokenizer->special_ids(), *recipe.embedding_init),
                               model->initializer_range());
    embedding_seconds = seconds_since(embedding_start);
  }
  const MlmMasker masker(
      MlmMaskingOptions(tokenizer->mask_id(), tokenizer->vocab_size(), tokenizer->special_ids())
          .mlm_probability(recipe.mlm_probability)
          .seed(recipe.pretrain.seed()));
  const auto result = pretrain_mlm(*model, train, heldout, masker,
                                   MlmPretrainOptions(recipe.pretrain).label("backbone " + recipe.profile));
  model->eval();
  model->save_pretrained_directory(tmp.string());

  int64_t parameters = 0;
  for (const auto& p : model->parameters()) parameters += p.numel();
  const nlohmann::json record = {{"profile", recipe.profile},
                                 {"key", key},
                                 {"key_material", recipe.key_material(corpus.manifest_sha256)},
                                 {"corpus",
                                  {{"manifest", corpus.manifest},
                                   {"manifest_sha256", corpus.manifest_sha256},
                                   {"train_path", corpus.train_path},
                                   {"heldout_path", corpus.heldout_path},
                                   {"task_text_path", corpus.task_text_path}}},
                                 {"tokenizer", {{"vocab_size", tokenizer->vocab_size()}}},
                                 {"data",
                                  {{"train_lines", train.lines},
                                   {"train_blocks", train.ids.size(0)},
                                   {"heldout_lines", heldout.lines},
                                   {"heldout_blocks", heldout.ids.size(0)},
                                   {"task_text_lines", task_text_lines},
                                   {"task_text_blocks", task_text_blocks},
                                   {"block_size", recipe.train_blocks.block_size()}}},
                                 {"parameters", parameters},
                                 {"threads", torch::get_num_threads()},
                                 {"pretrain", result.to_json()},
                                 {"seconds",
                                  {{"corpus", corpus_seconds},
                                   {"tokenizer", tokenizer_seconds},
                                   {"encode", encode_seconds},
                                   {"embedding_init", embedding_seconds},
                                   {"pretrain", result.wall_seconds},
                                   {"total", corpus_seconds + seconds_since(start)}}}};
  write_file_atomically((tmp / kPretrainRecordFileName).string(), record.dump(2) + "\n");
  say(recipe, fmt::format("held-out MLM accuracy {:.4f} (no-context baseline {:.4f}), at <mask> {:.4f} (unigram "
                          "baseline {:.4f}, neighbour counts {:.4f}), loss {:.4f}, {:.0f} tok/s",
                          result.final_heldout_accuracy, result.no_context_accuracy,
                          result.final_heldout_masked_accuracy, result.baseline_accuracy,
                          result.neighbour_count_masked_accuracy, result.final_heldout_loss,
                          result.tokens_per_second));
}

struct Located {
  CorpusText corpus;
  std::string key;
  fs::path dir;
  double corpus_seconds;
};

Located locate(const BackboneRecipe& recipe, const BackboneStages& stages, const BackboneEnvironment& env) {
  TORCH_CHECK(stages.build_corpus && stages.train_tokenizer && stages.load_tokenizer, "backbone ",
              recipe.profile, ": every stage (corpus, tokenizer training, tokenizer loading) is needed");
  TORCH_CHECK(!env.cache_root.empty(), "backbone ", recipe.profile, ": the cache root is empty");
  const auto start = std::chrono::steady_clock::now();
  const auto dir = corpus_dir(recipe, env);
  fs::create_directories(dir);
  auto corpus = stages.build_corpus(dir.string());
  const double corpus_seconds = seconds_since(start);
  auto key = backbone_key(recipe, corpus);
  auto final_dir = backbones_dir(env) / fmt::format("{}-{}", recipe.profile, short_key(key));
  return {std::move(corpus), std::move(key), std::move(final_dir), corpus_seconds};
}

}  // namespace

BackboneEnvironment BackboneEnvironment::from_environment() {
  if (const char* cache = std::getenv("CAPABOOST_CACHE"); cache != nullptr && *cache != '\0')
    return at(cache);
  const char* home = std::getenv("HOME");
  TORCH_CHECK(
      home != nullptr && *home != '\0',
      "backbone cache: neither CAPABOOST_CACHE nor HOME is set; set CAPABOOST_CACHE to a writable directory");
  return at((fs::path(home) / ".cache" / "capaboost").string());
}

BackboneEnvironment BackboneEnvironment::at(const std::string& cache_root) {
  return {cache_root, (fs::path(cache_root) / "npm").string(),
          resolve_data_root("", "../shared/data").path.string()};
}

EncoderShape BackboneRecipe::model_options(int64_t vocab_size, int64_t pad_id) const {
  return sized_encoder(model, vocab_size, pad_id, train_blocks.block_size());
}

nlohmann::json BackboneRecipe::key_material(const std::string& manifest_sha256) const {
  // The model config without the tokenizer-derived fields (vocab, padding id), which the tokenizer
  // options and corpus already determine.
  auto model_json = encoder_config_json(model_options(0, 0));
  model_json.erase("vocab_size");
  model_json.erase("pad_token_id");
  nlohmann::json material = {{"code_version", kBackboneCodeVersion},
          {"corpus_manifest_sha256", manifest_sha256},
          {"corpus_options", corpus_options},
          {"tokenizer_options", tokenizer_options},
          {"model", model_json},
          {"blocks",
           {{"block_size", train_blocks.block_size()},
            {"max_blocks", train_blocks.max_blocks()},
            {"heldout_max_blocks", heldout_max_blocks}}},
          {"mlm_probability", mlm_probability},
          {"embedding_init", embedding_init ? embedding_init->to_json() : nlohmann::json(nullptr)},
          {"pretrain", pretrain.to_json()}};
  if (!task_text.empty()) material["task_text"] = task_text;
  return material;
}

// Complete = renamed into place (only finished builds are) and recording this very key.
bool is_complete_backbone(const fs::path& dir, const std::string& key) {
  const auto record_path = dir / kPretrainRecordFileName;
  if (!fs::is_regular_file(record_path) || !fs::is_regular_file(dir / kConfigFileName) ||
      !fs::is_regular_file(dir / kWeightsFileName)) {
    return false;
  }
  try {
    std::ifstream in(record_path);
    return nlohmann::json::parse(in).value("key", std::string()) == key;
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

bool build_cached_directory(const fs::path& dir, const std::string& key,
                            const std::function<void(const fs::path& tmp)>& build) {
  if (is_complete_backbone(dir, key)) return false;
  const auto parent = dir.parent_path();
  const auto name = dir.filename().string();
  fs::create_directories(parent);
  remove_abandoned_builds(parent, name);
  const auto tmp = parent / fmt::format("{}{}-{}", kTempPrefix, name, ::getpid());
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  try {
    build(tmp);
    if (is_complete_backbone(dir, key)) {
      // A concurrent build of the same key finished first: its result is as good as ours.
      fs::remove_all(tmp);
      return true;
    }
    TORCH_CHECK(is_complete_backbone(tmp, key), "backbone build of ", dir.string(),
                " finished without config.json, model.safetensors and a pretrain.json recording its key");
    if (fs::exists(dir)) fs::remove_all(dir);  // not a complete backbone: replace it
    fs::rename(tmp, dir);
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
    throw;
  }
  return true;
}

std::optional<std::string> find_backbone(const BackboneRecipe& recipe, const BackboneStages& stages,
                                         const BackboneEnvironment& env) {
  const auto located = locate(recipe, stages, env);
  if (is_complete_backbone(located.dir, located.key)) return located.dir.string();
  return std::nullopt;
}

std::string ensure_backbone(const BackboneRecipe& recipe, const BackboneStages& stages,
                            const BackboneEnvironment& env) {
  const auto located = locate(recipe, stages, env);
  const bool built = build_cached_directory(located.dir, located.key, [&](const fs::path& tmp) {
    build_into(tmp, recipe, stages, located.corpus, located.key, located.corpus_seconds);
  });
  say(recipe, (built ? "written to " : "cached at ") + located.dir.string());
  return located.dir.string();
}

std::string ensure_backbone(const std::string& profile, const BackboneEnvironment& env) {
  const auto recipe = backbone_recipe(profile);
  return ensure_backbone(recipe, corpus_backbone_stages(recipe, env), env);
}

std::optional<std::string> find_backbone(const std::string& profile, const BackboneEnvironment& env) {
  const auto recipe = backbone_recipe(profile);
  return find_backbone(recipe, corpus_backbone_stages(recipe, env), env);
}

}  // namespace capaboost
