// DeBERTa as a backbone: a Hugging Face-layout deberta-v2 directory loads by its model_type with its own
// spm.model and a fresh head of the task's kind; deberta-v3-base names where to put the download; the
// random shapes run on roberta-base's tokenizer.

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "backbones/backbone_registry.h"
#include "lib/data/glue_test_support.h"
#include "models/deberta_v2_pretrained.h"
#include "support/temp_dir.h"
#include "tokenizers/deberta_v2_tokenizer.h"

using namespace capaboost;
using capaboost::testing::TempDir;

namespace {

bool spm_train_available() { return std::system("command -v spm_train > /dev/null") == 0; }

// A tiny DeBERTa checkpoint with a DeBERTa-convention spm.model trained beside it.
void write_checkpoint(const TempDir& dir) {
  DebertaV2ForSequenceClassification model(
      DebertaV2Options().vocab_size(60).hidden_size(16).num_hidden_layers(2).num_attention_heads(2)
          .intermediate_size(24).position_buckets(8).max_position_embeddings(64).num_labels(5));
  save_pretrained(*model, dir.path().string());
  {
    std::ofstream text(dir.file("text.txt"));
    for (int i = 0; i < 300; ++i) text << "a small model reads the text number " << i % 17 << " again\n";
  }
  const std::string command = "cd '" + dir.path().string() +
                              "' && spm_train --input=text.txt --model_prefix=spm --vocab_size=34 --pad_id=0 "
                              "--pad_piece=[PAD] --bos_id=1 --bos_piece=[CLS] --eos_id=2 --eos_piece=[SEP] "
                              "--unk_id=3 --unk_piece=[UNK] --minloglevel=2 > train.log 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream log(dir.file("train.log"));
  INFO(std::string(std::istreambuf_iterator<char>(log), {}));
  REQUIRE(status == 0);
}

}  // namespace

TEST_CASE("a deberta-v2 checkpoint directory loads with its spm.model and a fresh head", "[backbones][deberta]") {
  if (!spm_train_available()) {
    WARN("skipped: spm_train not installed (Debian package sentencepiece: make deps)");
    return;
  }
  TempDir dir;
  write_checkpoint(dir);
  const BackboneContext context{};

  auto classifier = load_backbone(dir.path().string(), TaskHead{TaskHead::Kind::kSequenceClassification, 2}, context);
  CHECK(classifier.pretrained);
  REQUIRE(std::dynamic_pointer_cast<DebertaV2Tokenizer>(classifier.processor.tokenizer));
  CHECK(classifier.processor.max_length == 64);
  auto model = std::dynamic_pointer_cast<DebertaV2ForSequenceClassificationImpl>(classifier.model);
  REQUIRE(model);
  CHECK(model->options.num_labels() == 2);  // the task's head, not the checkpoint's five labels

  auto span = load_backbone(dir.path().string(), TaskHead{TaskHead::Kind::kSpan, 2}, context);
  CHECK(std::dynamic_pointer_cast<DebertaV2ForQuestionAnsweringImpl>(span.model));
  // The encoder weights are the checkpoint's in both.
  auto qa = std::dynamic_pointer_cast<DebertaV2ForQuestionAnsweringImpl>(span.model);
  CHECK(torch::equal(qa->deberta->embeddings->word_embeddings->weight,
                     model->deberta->embeddings->word_embeddings->weight));
}

TEST_CASE("deberta-v3-base names the files to download and where they go", "[backbones][deberta]") {
  TempDir empty;
  ::setenv("CAPABOOST_CHECKPOINTS", empty.path().c_str(), 1);
  CHECK_THROWS_WITH(load_backbone("deberta-v3-base", TaskHead{}, BackboneContext{}),
                    Catch::Contains(empty.file("deberta-v3-base")) && Catch::Contains("microsoft/deberta-v3-base") &&
                        Catch::Contains("spm.model"));
  ::unsetenv("CAPABOOST_CHECKPOINTS");
}

TEST_CASE("random DeBERTa shapes read text with roberta-base's tokenizer", "[backbones][deberta]") {
  const auto root = capaboost::test::mirror_root();
  if (!std::filesystem::exists(std::filesystem::path(root.path) / "tokenizers" / "roberta-base" / "vocab.json")) {
    WARN("skipped: roberta-base's tokenizer is not under " << root.path << " (set CAPABOOST_DATA_DIR)");
    return;
  }
  auto backbone = load_backbone("deberta-tiny-random", TaskHead{TaskHead::Kind::kSequenceClassification, 3},
                                BackboneContext{root.path});
  CHECK_FALSE(backbone.pretrained);
  const auto encoded = backbone.processor.tokenizer->encode("a sentence", std::string_view("and its pair"));
  auto model = std::dynamic_pointer_cast<DebertaV2ForSequenceClassificationImpl>(backbone.model);
  REQUIRE(model);
  CHECK(model->options.pad_token_id() == backbone.processor.tokenizer->pad_id());
  const auto logits = model->forward(torch::tensor(encoded.input_ids).unsqueeze(0)).logits;  // (1, 3)
  CHECK(logits.sizes() == torch::IntArrayRef({1, 3}));
}
