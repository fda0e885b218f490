#include "pretrain/corpus_stages.h"

#include "corpus/corpus_builder.h"
#include "tokenizers/sentencepiece_tokenizer.h"
#include "tokenizers/tokenizer_loader.h"

namespace capaboost {

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

  BackboneStages stages;
  stages.build_corpus = [sources, corpus_options](const std::string& dir) {
    const auto corpus = build_corpus(sources, corpus_options, dir);
    return CorpusText{corpus.train_path, corpus.heldout_path, corpus.manifest, corpus.manifest_sha256};
  };
  stages.train_tokenizer = [tokenizer_options](const std::string& text, const std::string& out_dir) {
    train_sentencepiece(text, out_dir, tokenizer_options);
  };
  stages.load_tokenizer = [](const std::string& dir) { return load_tokenizer(dir); };
  return stages;
}


}  // namespace capaboost
