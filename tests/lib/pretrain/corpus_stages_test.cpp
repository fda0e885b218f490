#include "pretrain/corpus_stages.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "corpus/corpus_builder.h"
#include "data/data_root.h"
#include "lib/data/glue_test_support.h"
#include "pretrain/backbone_recipes.h"
#include "support/read_text.h"
#include "support/temp_dir.h"

using namespace capaboost;
using namespace capaboost::testing;
namespace fs = std::filesystem;

namespace {

// A data root with RTE and SST-2 in GLUE layout: train rows that may reach pre-training, dev rows that
// must not.
void write_tasks(const test::ScratchDir& root) {
  root.write("RTE/train.tsv",
             "index\tsentence1\tsentence2\tlabel\n"
             "0\tThe cat sat on the mat.\tA cat sat.\tentailment\n"
             "1\tRain fell all day.\tIt was  dry.\tnot_entailment\n");
  root.write("RTE/dev.tsv", "index\tsentence1\tsentence2\tlabel\n0\tDEV premise.\tDEV hypothesis.\tentailment\n");
  root.write("SST-2/train.tsv", "sentence\tlabel\na charming film \t1\ndull and long \t0\nfunny \t1\n");
  root.write("SST-2/dev.tsv", "sentence\tlabel\nDEV review \t1\n");
}

// The smoke recipe (a few hundred corpus units per source) with task text; the corpus sources are the
// real ones `make corpus-sources` installs.
BackboneRecipe smoke_with_task_text() {
  auto recipe = backbone_recipe("smoke");
  recipe.task_text = {"RTE", "SST-2"};
  return recipe;
}

#define REQUIRE_CORPUS_SOURCES(env)                                                                        \
  if (!fs::is_directory(default_corpus_sources((env).npm_prefix).brown_dir)) {                           \
    WARN("skipped: corpus sources not installed under " << (env).npm_prefix << " (make corpus-sources)"); \
    return;                                                                                               \
  }

}  // namespace

TEST_CASE("Task text is the train splits' sentences, joins the key, and never reads dev", "[pretrain][corpus]") {
  auto env = BackboneEnvironment::from_environment();
  REQUIRE_CORPUS_SOURCES(env);
  TempDir corpus_dir;
  test::ScratchDir data;
  write_tasks(data);
  env.data_root = data.path.string();

  const auto plain = corpus_backbone_stages(backbone_recipe("smoke"), env).build_corpus(corpus_dir.path().string());
  CHECK(plain.task_text_path.empty());
  CHECK_FALSE(plain.manifest.contains("task_text"));

  const auto with_text =
      corpus_backbone_stages(smoke_with_task_text(), env).build_corpus(corpus_dir.path().string());
  // The corpus itself (tokenizer text, held-out text) is the same files.
  CHECK(with_text.train_path == plain.train_path);
  CHECK(with_text.heldout_path == plain.heldout_path);
  CHECK(with_text.manifest_sha256 != plain.manifest_sha256);

  // Pairs give two lines each, in file order; whitespace is normalised; no dev sentence.
  CHECK(read_text(with_text.task_text_path) ==
        "The cat sat on the mat.\nA cat sat.\nRain fell all day.\nIt was dry.\n"
        "a charming film\ndull and long\nfunny\n");
  const auto& tasks = with_text.manifest["task_text"]["tasks"];
  CHECK(tasks["RTE"]["file"] == "RTE/train.tsv");
  CHECK(tasks["RTE"]["units"] == 4);
  CHECK(tasks["SST-2"]["examples"] == 3);
  CHECK(tasks["SST-2"]["words"] == 7);

  // Other task text is another key; the same is the same key.
  data.write("SST-2/train.tsv", "sentence\tlabel\na charming film \t1\n");
  const auto changed =
      corpus_backbone_stages(smoke_with_task_text(), env).build_corpus(corpus_dir.path().string());
  CHECK(changed.manifest_sha256 != with_text.manifest_sha256);
  write_tasks(data);
  CHECK(corpus_backbone_stages(smoke_with_task_text(), env).build_corpus(corpus_dir.path().string()).manifest_sha256 ==
        with_text.manifest_sha256);
}

TEST_CASE("Task text refuses subsets and names missing data", "[pretrain][corpus]") {
  auto env = BackboneEnvironment::from_environment();
  REQUIRE_CORPUS_SOURCES(env);
  TempDir corpus_dir;
  test::ScratchDir data;
  env.data_root = data.path.string();
  auto recipe = smoke_with_task_text();
  CHECK_THROWS_AS(corpus_backbone_stages(recipe, env).build_corpus(corpus_dir.path().string()), MissingDataError);
  recipe.task_text = {"SST-2-10k"};
  write_tasks(data);
  CHECK_THROWS_WITH(corpus_backbone_stages(recipe, env).build_corpus(corpus_dir.path().string()),
                    Catch::Contains("training subset") && Catch::Contains("SST-2"));
}

TEST_CASE("Recipes without task text keep their key material", "[pretrain][corpus]") {
  // mini's cached directory (and every run record naming it) stays valid: no task_text field at all.
  CHECK_FALSE(backbone_recipe("mini").key_material("x").contains("task_text"));
  const auto task_text = backbone_recipe("mini-task-text");
  CHECK(task_text.key_material("x")["task_text"] == nlohmann::json({"CoLA", "SST-2", "MRPC", "STS-B", "RTE"}));
  // Only the task text and the name differ from mini: same tokenizer, blocks, model and schedule.
  auto material = task_text.key_material("x");
  material.erase("task_text");
  CHECK(material == backbone_recipe("mini").key_material("x"));
}
