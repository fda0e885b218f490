#include "pretrain/backbone_builder.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "lib/pretrain/pretrain_fixture.h"
#include "lib/tokenizers/tiny_bpe_dir.h"
#include "backbones/backbone_registry.h"
#include "models/deberta_v2_pretrained.h"
#include "models/roberta_pretrained.h"
#include "pretrain/distributional_embeddings.h"
#include "pretrain/backbone_recipes.h"
#include "support/temp_dir.h"
#include "tokenizers/byte_level_bpe_tokenizer.h"

using namespace capaboost;
using namespace capaboost::testing;
namespace fs = std::filesystem;

namespace {

// Fixture stages: the grammar text as corpus, the tiny BPE files as the "trained" tokenizer; counters
// show which stages ran.
struct FixtureStages {
  TinyBpeDir bpe;
  int corpus_builds = 0;
  int tokenizer_trainings = 0;
  bool fail_tokenizer = false;
  bool with_task_text = false;
  std::string tokenizer_text;  ///< the text the last tokenizer training was given

  BackboneStages stages() {
    BackboneStages s;
    s.build_corpus = [this](const std::string& dir) {
      ++corpus_builds;
      write_lines(dir + "/train.txt", grammar_sentences(200));
      write_lines(dir + "/heldout.txt", grammar_sentences(30, 500));
      CorpusText text{dir + "/train.txt", dir + "/heldout.txt", {{"fixture", "grammar"}}, "fixture-sha", ""};
      if (with_task_text) {
        write_lines(dir + "/task.txt", grammar_sentences(100, 900));
        text.task_text_path = dir + "/task.txt";
      }
      return text;
    };
    s.train_tokenizer = [this](const std::string& text, const std::string& out_dir) {
      ++tokenizer_trainings;
      tokenizer_text = text;
      if (fail_tokenizer) throw std::runtime_error("tokenizer training failed on purpose");
      fs::copy_file(bpe.path() + "/vocab.json", out_dir + "/vocab.json");
      fs::copy_file(bpe.path() + "/merges.txt", out_dir + "/merges.txt");
    };
    s.load_tokenizer = [](const std::string& dir) { return std::make_shared<ByteLevelBpeTokenizer>(dir); };
    return s;
  }
};

BackboneRecipe tiny_recipe() {
  BackboneRecipe recipe;
  recipe.profile = "test";
  recipe.tokenizer_options = {{"kind", "fixture-bpe"}};
  recipe.model =
      roberta_options().hidden_size(16).num_hidden_layers(1).num_attention_heads(2).intermediate_size(32);
  recipe.train_blocks = TextBlockOptions().block_size(32);
  recipe.heldout_max_blocks = 8;
  recipe.pretrain = MlmPretrainOptions().steps(4).batch_size(4).eval_every(0).show_progress(false);
  return recipe;
}

}  // namespace

TEST_CASE("ensure_backbone builds once and is a cache hit afterwards", "[pretrain][backbone]") {
  TempDir cache;
  FixtureStages fixture;
  const auto env = BackboneEnvironment::at(cache.path().string());
  const auto recipe = tiny_recipe();
  CHECK_FALSE(find_backbone(recipe, fixture.stages(), env).has_value());

  const auto dir = ensure_backbone(recipe, fixture.stages(), env);
  CHECK(fixture.tokenizer_trainings == 1);
  CHECK(fs::path(dir).parent_path() == cache.path() / "backbones");
  CHECK(fs::path(dir).filename().string().rfind("test-", 0) == 0);
  for (const char* file : {"config.json", "model.safetensors", "vocab.json", "merges.txt", "pretrain.json"}) {
    INFO(file);
    CHECK(fs::is_regular_file(fs::path(dir) / file));
  }
  const auto record = nlohmann::json::parse(std::ifstream(fs::path(dir) / "pretrain.json"));
  CHECK(dir.substr(dir.size() - 12) == record["key"].get<std::string>().substr(0, 12));
  CHECK(record["key_material"]["corpus_manifest_sha256"] == "fixture-sha");
  CHECK(record["pretrain"]["steps"] == 4);

  CHECK(ensure_backbone(recipe, fixture.stages(), env) == dir);
  CHECK(fixture.tokenizer_trainings == 1);  // no second training
  CHECK(find_backbone(recipe, fixture.stages(), env) == dir);
  // No temporary directory is left behind.
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(cache.path() / "backbones")) ++entries;
  CHECK(entries == 1);

  // The result is an MLM checkpoint the fine-tuning loader reads.
  auto [classifier, report] = load_roberta_for_sequence_classification(dir, 2);
  CHECK(classifier->options.hidden_size() == 16);

  // Any change to what the weights depend on is a different backbone.
  auto longer = tiny_recipe();
  longer.pretrain.steps(5);
  CHECK_FALSE(find_backbone(longer, fixture.stages(), env).has_value());
}

TEST_CASE("A backbone with embedding_init starts from the distributional word vectors", "[pretrain][backbone]") {
  TempDir cache;
  FixtureStages fixture;
  const auto env = BackboneEnvironment::at(cache.path().string());
  auto recipe = tiny_recipe();
  recipe.embedding_init = DistributionalEmbeddingOptions(16).window(2);
  recipe.pretrain.peak_lr(1e-9);  // the steps barely move the weights: what is saved is the start
  const auto dir = ensure_backbone(recipe, fixture.stages(), env);

  const auto record = nlohmann::json::parse(std::ifstream(fs::path(dir) / "pretrain.json"));
  CHECK(record["key_material"]["embedding_init"]["method"] == "ppmi-svd");
  CHECK(record["seconds"]["embedding_init"].get<double>() > 0.0);
  auto plain = tiny_recipe();
  plain.pretrain.peak_lr(1e-9);
  CHECK_FALSE(find_backbone(plain, fixture.stages(), env).has_value());  // a different key

  // Rows the corpus covers are the vectors, rescaled to the random initialisation's spread.
  const ByteLevelBpeTokenizer tokenizer(dir);
  const auto train =
      encode_text_blocks(tokenizer, record["corpus"]["train_path"].get<std::string>(), recipe.train_blocks);
  const auto vectors = distributional_embeddings(train.ids, tokenizer.vocab_size(), tokenizer.special_ids(),
                                                 *recipe.embedding_init);  // (V, 16)
  auto [model, report] = load_roberta_for_masked_lm(dir);
  const auto weight = model->roberta->embeddings->word_embeddings->weight.detach();  // (V, 16)
  const auto covered = vectors.abs().sum(1).gt(0);
  REQUIRE(covered.sum().item<int64_t>() > 10);
  const auto saved = weight.index({covered}), expected = vectors.index({covered});
  const auto cosine = (saved * expected).sum(1) / (saved.norm(2, 1) * expected.norm(2, 1));
  CHECK(cosine.min().item<double>() > 0.999);
  CHECK(saved.std().item<double>() == Approx(std::get<BertOptions>(recipe.model).initializer_range()).epsilon(0.01));
}

TEST_CASE("Task text joins the MLM blocks, not the tokenizer's text nor the held-out blocks", "[pretrain][backbone]") {
  TempDir cache;
  FixtureStages fixture;
  fixture.with_task_text = true;
  const auto env = BackboneEnvironment::at(cache.path().string());
  const auto dir = ensure_backbone(tiny_recipe(), fixture.stages(), env);
  const auto record = nlohmann::json::parse(std::ifstream(fs::path(dir) / "pretrain.json"));
  const auto corpus_dir = fs::path(record["corpus"]["train_path"].get<std::string>()).parent_path();
  CHECK(fixture.tokenizer_text == (corpus_dir / "train.txt").string());

  const ByteLevelBpeTokenizer tokenizer(dir);
  const auto corpus = encode_text_blocks(tokenizer, (corpus_dir / "train.txt").string(), tiny_recipe().train_blocks);
  const auto task = encode_text_blocks(tokenizer, (corpus_dir / "task.txt").string(), tiny_recipe().train_blocks);
  REQUIRE(task.ids.size(0) > 0);
  CHECK(record["data"]["task_text_blocks"] == task.ids.size(0));
  CHECK(record["data"]["task_text_lines"] == 100);
  CHECK(record["data"]["train_blocks"] == corpus.ids.size(0) + task.ids.size(0));
}

TEST_CASE("A failed backbone build leaves nothing that looks complete", "[pretrain][backbone]") {
  TempDir cache;
  FixtureStages fixture;
  fixture.fail_tokenizer = true;
  const auto env = BackboneEnvironment::at(cache.path().string());
  CHECK_THROWS_WITH(ensure_backbone(tiny_recipe(), fixture.stages(), env), Catch::Contains("on purpose"));
  CHECK(fs::is_empty(cache.path() / "backbones"));
  CHECK_FALSE(find_backbone(tiny_recipe(), fixture.stages(), env).has_value());
}

TEST_CASE("A backbone in DeBERTa-v2 layout is an MLM checkpoint and a fine-tunable encoder", "[pretrain][backbone][deberta]") {
  TempDir cache;
  FixtureStages fixture;
  const auto env = BackboneEnvironment::at(cache.path().string());
  auto recipe = tiny_recipe();
  recipe.model = DebertaV2Options().hidden_size(16).num_hidden_layers(1).num_attention_heads(2).intermediate_size(32).position_buckets(8);
  recipe.embedding_init = DistributionalEmbeddingOptions(16).window(2);
  // Another architecture is another backbone, even with every other field equal.
  CHECK(recipe.key_material("x") != tiny_recipe().key_material("x"));
  const auto dir = ensure_backbone(recipe, fixture.stages(), env);

  const auto config = nlohmann::json::parse(std::ifstream(fs::path(dir) / "config.json"));
  CHECK(config["model_type"] == "deberta-v2");
  CHECK(config["architectures"][0] == "DebertaV2ForMaskedLM");
  CHECK(config["max_position_embeddings"] == 32);  // the block size: relative positions need no offset
  const auto record = nlohmann::json::parse(std::ifstream(fs::path(dir) / "pretrain.json"));
  CHECK(record["key_material"]["model"]["model_type"] == "deberta-v2");
  CHECK(record["pretrain"]["steps"] == 4);

  auto [mlm, report] = load_deberta_v2_for_masked_lm(dir);
  CHECK(report.missing.empty());
  CHECK(report.unexpected.empty());
  CHECK(mlm->options.hidden_size() == 16);
  // The registry reads the layout from config.json: pre-trained and randomly initialised.
  const TaskHead head{TaskHead::Kind::kSequenceClassification, 2};
  const auto pretrained = load_checkpoint(dir, head);
  CHECK(pretrained.pretrained);
  auto* classifier = dynamic_cast<DebertaV2ForSequenceClassificationImpl*>(pretrained.model.get());
  REQUIRE(classifier != nullptr);
  CHECK(torch::equal(classifier->deberta->embeddings->word_embeddings->weight,
                     mlm->deberta->embeddings->word_embeddings->weight));
  CHECK(pretrained.processor.max_length == 32);
  torch::manual_seed(0);
  const auto random = load_checkpoint_randomly_initialised(dir, head);
  CHECK_FALSE(random.pretrained);
  auto* random_classifier = dynamic_cast<DebertaV2ForSequenceClassificationImpl*>(random.model.get());
  REQUIRE(random_classifier != nullptr);
  CHECK_FALSE(torch::equal(random_classifier->deberta->embeddings->word_embeddings->weight,
                           mlm->deberta->embeddings->word_embeddings->weight));
}

TEST_CASE("Pilots of mini change its position scheme and nothing else", "[pretrain][backbone]") {
  const auto mini = backbone_recipe("mini");
  CHECK(backbone_pilots("mini") == std::vector<std::string>{"absolute", "relative_key", "relative_key_query"});
  CHECK(backbone_pilots("smoke").empty());
  for (const auto& pilot : backbone_pilots("mini")) {
    const auto recipe = backbone_pilot_recipe("mini", pilot);
    CHECK(recipe.profile == "mini+" + pilot);
    CHECK(recipe.corpus_name == mini.corpus_name);
    CHECK(recipe.tokenizer_options == mini.tokenizer_options);
    CHECK(recipe.pretrain.to_json() == mini.pretrain.to_json());
    const auto options = std::get<BertOptions>(recipe.model);
    CHECK(to_string(options.position_embedding_type()) == pilot);
    // The pilot equal to mini's own scheme has mini's key: building either builds both.
    const bool same = options.position_embedding_type() ==
                      std::get<BertOptions>(mini.model).position_embedding_type();
    CHECK((recipe.key_material("x") == mini.key_material("x")) == same);
  }
  CHECK_THROWS_WITH(backbone_pilot_recipe("mini", "rotary"),
                    Catch::Contains("no pilot 'rotary'") && Catch::Contains("relative_key_query"));
  CHECK_THROWS_WITH(backbone_pilot_recipe("smoke", "absolute"), Catch::Contains("its pilots: none"));
}

TEST_CASE("Backbone recipes exist for mini, mini-deberta, mini-task-text(-long) and smoke only", "[pretrain][backbone]") {
  const auto mini = backbone_recipe("mini");
  CHECK(mini.tokenizer_options["vocab_size"] == 8000);
  CHECK(std::get<BertOptions>(mini.model_options(8000, 1)).max_position_embeddings() ==
        mini.train_blocks.block_size() + 2);
  CHECK(backbone_recipe("smoke").pretrain.steps() < mini.pretrain.steps());
  CHECK_THROWS_WITH(backbone_recipe("huge"), Catch::Contains("known profiles: mini, mini-deberta, mini-task-text, mini-task-text-long, smoke"));
  // The key changes with the corpus.
  CHECK(mini.key_material("a") != mini.key_material("b"));

  // mini-deberta: mini's corpus (one corpus directory for both), tokenizer and width, in DeBERTa-v2 layout.
  const auto deberta = backbone_recipe("mini-deberta");
  CHECK(deberta.corpus_name == mini.corpus_name);
  CHECK(deberta.corpus_options == mini.corpus_options);
  CHECK(deberta.tokenizer_options == mini.tokenizer_options);
  const auto shape = std::get<DebertaV2Options>(deberta.model_options(8000, 0));
  CHECK(shape.hidden_size() == 128);
  CHECK(shape.relative_attention());
  CHECK_FALSE(shape.position_biased_input());
  CHECK(shape.max_position_embeddings() == deberta.train_blocks.block_size());
  CHECK(deberta.key_material("a") != mini.key_material("a"));

  // mini-task-text-long: mini-task-text's data, model and warm-up share, twice the steps, its own key.
  const auto task_text = backbone_recipe("mini-task-text");
  const auto long_schedule = backbone_recipe("mini-task-text-long");
  CHECK(long_schedule.task_text == task_text.task_text);
  CHECK(long_schedule.tokenizer_options == task_text.tokenizer_options);
  CHECK(long_schedule.pretrain.steps() == 2 * task_text.pretrain.steps());
  CHECK(long_schedule.pretrain.warmup_ratio() == task_text.pretrain.warmup_ratio());
  CHECK(long_schedule.key_material("a") != task_text.key_material("a"));
}
