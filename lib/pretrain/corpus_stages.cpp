#include "pretrain/corpus_stages.h"

#include <filesystem>

#include "corpus/corpus_builder.h"
#include "corpus/source_text.h"
#include "data/glue_loader.h"
#include "util/atomic_file.h"
#include "util/sha256.h"
#include "tokenizers/sentencepiece_tokenizer.h"
#include "tokenizers/tokenizer_loader.h"

namespace capaboost {
namespace {

struct TaskText {
  std::string path;
  nlohmann::json manifest;
};

// The sentences of each task's train split, one per line (pairs give two lines), written into the
// corpus directory under a name of the task list. Only train.tsv is read: under both evaluation
// protocols every test half comes from dev.tsv, so no test sentence can reach pre-training. (Under
// propetl SST-2's eval rows are train rows: their text, never their labels, is seen, as in
// task-adaptive pre-training.)
TaskText write_task_text(const std::vector<std::string>& tasks, const DataRoot& root, const std::string& dir) {
  SourceText text;
  nlohmann::json entries = nlohmann::json::object();
  for (const auto& name : tasks) {
    const TaskInfo& task = glue_task(name);
    TORCH_CHECK(task.train_subset == 0, "task text: ", name, " is a training subset; name its task (",
                task.folder, ")");
    const auto file = load_glue_file(task, root, GlueFile::kTrain);
    const auto before = text.units.size();
    for (const Example& example : file.examples) {
      add_unit(text, example.text_a, 0);
      if (example.text_b) add_unit(text, *example.text_b, 0);
    }
    int64_t words = 0;
    for (auto unit = text.units.begin() + before; unit != text.units.end(); ++unit) words += count_words(*unit);
    entries[task.name] = {{"file", task.folder + "/" + task.file_name(GlueFile::kTrain)},
                          {"sha256", file.sha256},
                          {"examples", static_cast<int64_t>(file.examples.size())},
                          {"units", static_cast<int64_t>(text.units.size() - before)},
                          {"words", words}};
  }
  std::string joined;
  for (const auto& unit : text.units) joined += unit + "\n";
  const auto sha256 = sha256_hex(joined);
  const auto path = (std::filesystem::path(dir) / ("task_text-" + sha256.substr(0, 12) + ".txt")).string();
  if (!std::filesystem::exists(path)) write_file_atomically(path, joined);
  return {path, {{"tasks", std::move(entries)}, {"sha256", sha256}, {"bytes", static_cast<int64_t>(joined.size())}}};
}

}  // namespace

BackboneStages corpus_backbone_stages(const BackboneRecipe& recipe, const BackboneEnvironment& env) {
  const auto& c = recipe.corpus_options;
  const auto corpus_options = CorpusOptions()
                                  .heldout_fraction(c.at("heldout_fraction").get<double>())
                                  .seed(c.at("seed").get<uint64_t>())
                                  .max_units_per_source(c.at("max_units_per_source").get<int64_t>());
  const auto& t = recipe.tokenizer_options;
  TORCH_CHECK(t.value("kind", std::string()) == "sentencepiece", "backbone ", recipe.profile,
              ": the corpus stages train SentencePiece tokenizers; tokenizer_options.kind is ",
              t.value("kind", ""));
  const auto tokenizer_options = SentencePieceTrainOptions()
                                     .vocab_size(t.at("vocab_size").get<int64_t>())
                                     .model_type(t.at("model_type").get<std::string>())
                                     .character_coverage(t.at("character_coverage").get<double>())
                                     .input_sentence_size(t.at("input_sentence_size").get<int64_t>())
                                     .seed(t.at("seed").get<uint64_t>())
                                     .num_threads(t.at("num_threads").get<int64_t>());
  const auto sources = default_corpus_sources(env.npm_prefix);
  const DataRoot data_root{env.data_root, "backbone environment"};

  BackboneStages stages;
  stages.build_corpus = [sources, corpus_options, tasks = recipe.task_text, data_root](const std::string& dir) {
    const auto corpus = build_corpus(sources, corpus_options, dir);
    CorpusText text{corpus.train_path, corpus.heldout_path, corpus.manifest, corpus.manifest_sha256, ""};
    if (tasks.empty()) return text;
    const auto task_text = write_task_text(tasks, data_root, dir);
    text.task_text_path = task_text.path;
    // The key must change with the task text's bytes: hash the corpus manifest with the task text's.
    text.manifest["task_text"] = task_text.manifest;
    text.manifest_sha256 = sha256_hex(text.manifest.dump(2) + "\n");
    return text;
  };
  stages.train_tokenizer = [tokenizer_options](const std::string& text, const std::string& out_dir) {
    train_sentencepiece(text, out_dir, tokenizer_options);
  };
  stages.load_tokenizer = [](const std::string& dir) { return load_tokenizer(dir); };
  return stages;
}


}  // namespace capaboost
