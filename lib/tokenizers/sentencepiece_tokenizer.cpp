#include "tokenizers/sentencepiece_tokenizer.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_map>

#include "checkpoint/atomic_file.h"
#include "data/sha256.h"

namespace capaboost {

namespace {

// Training reads the lines through an iterator rather than SentencePiece's --input flag: the model
// stores its trainer spec, and an input path in it would make the same text trained in two places give
// two different model files.
class LineIterator : public sentencepiece::SentenceIterator {
 public:
  explicit LineIterator(const std::string& path) : in_(path, std::ios::binary), path_(path) { Next(); }
  bool done() const override { return done_; }
  void Next() override {
    done_ = !std::getline(in_, line_);
    if (done_ && in_.bad()) status_ = sentencepiece::util::Status(sentencepiece::util::StatusCode::kInternal,
                                                                  "error reading " + path_);
  }
  const std::string& value() const override { return line_; }
  sentencepiece::util::Status status() const override { return status_; }

 private:
  std::ifstream in_;
  std::string path_;
  std::string line_;
  bool done_ = false;
  sentencepiece::util::Status status_;
};

// Links the tokenizer to the exact corpus it was trained on (compare with the corpus manifest).
std::string file_sha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  TORCH_CHECK(in, "train_sentencepiece: cannot open ", path);
  Sha256 hash;
  std::string chunk(1 << 20, '\0');
  while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0)
    hash.update(std::string_view(chunk.data(), static_cast<std::size_t>(in.gcount())));
  return hash.hex_digest();
}

std::string format_double(double value) {
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}

}  // namespace

void train_sentencepiece(const std::string& text_file, const std::string& out_dir,
                         const SentencePieceTrainOptions& options) {
  TORCH_CHECK(std::filesystem::is_regular_file(text_file), "train_sentencepiece: the training text ", text_file,
              " does not exist (build the corpus first: build_corpus writes train.txt)");
  TORCH_CHECK(options.vocab_size() > SentencePieceTokenizer::kMaskId + 1,
              "train_sentencepiece: vocab_size must exceed the 5 special tokens, got ", options.vocab_size());
  TORCH_CHECK(options.num_threads() >= 1, "train_sentencepiece: num_threads must be >= 1, got ",
              options.num_threads());

  const std::unordered_map<std::string, std::string> args = {
      {"model_prefix", "spm"},  // required by the trainer's checks; nothing is written under it
      {"model_type", options.model_type()},
      {"vocab_size", std::to_string(options.vocab_size())},
      {"character_coverage", format_double(options.character_coverage())},
      {"input_sentence_size", std::to_string(options.input_sentence_size())},
      {"shuffle_input_sentence", "true"},
      {"num_threads", std::to_string(options.num_threads())},
      // RoBERTa's ids, so the RoBERTa embedding and MLM code need no remapping.
      {"bos_id", "0"},
      {"pad_id", "1"},
      {"eos_id", "2"},
      {"unk_id", "3"},
      {"bos_piece", "<s>"},
      {"pad_piece", "<pad>"},
      {"eos_piece", "</s>"},
      {"unk_piece", "<unk>"},
      {"user_defined_symbols", "<mask>"},
      {"minloglevel", "1"}};
  // Sampling input_sentence_size lines (and nothing else in training) draws from this global generator.
  sentencepiece::SetRandomGeneratorSeed(static_cast<unsigned int>(options.seed()));
  LineIterator lines(text_file);
  std::string model;
  const auto status = sentencepiece::SentencePieceTrainer::Train(args, &lines, &model);
  TORCH_CHECK(status.ok(), "train_sentencepiece on ", text_file, " failed: ", status.ToString());

  std::error_code error;
  std::filesystem::create_directories(out_dir, error);
  TORCH_CHECK(!error, "train_sentencepiece: cannot create ", out_dir, ": ", error.message());
  const std::filesystem::path dir(out_dir);
  write_file_atomically((dir / SentencePieceTokenizer::kModelFile).string(), model);

  const SentencePieceTokenizer tokenizer((dir / SentencePieceTokenizer::kModelFile).string());
  const nlohmann::json config = {
      {"tokenizer_class", "SentencePieceTokenizer"},
      {"model_file", SentencePieceTokenizer::kModelFile},
      {"model_sha256", sha256_hex(model)},
      {"vocab_size", tokenizer.vocab_size()},
      {"special_tokens",
       {{"bos_token", {{"text", "<s>"}, {"id", SentencePieceTokenizer::kBosId}}},
        {"pad_token", {{"text", "<pad>"}, {"id", SentencePieceTokenizer::kPadId}}},
        {"eos_token", {{"text", "</s>"}, {"id", SentencePieceTokenizer::kEosId}}},
        {"unk_token", {{"text", "<unk>"}, {"id", SentencePieceTokenizer::kUnkId}}},
        {"mask_token", {{"text", "<mask>"}, {"id", SentencePieceTokenizer::kMaskId}}}}},
      {"training",
       {{"text_sha256", file_sha256(text_file)},
        {"model_type", options.model_type()},
        {"vocab_size", options.vocab_size()},
        {"character_coverage", options.character_coverage()},
        {"input_sentence_size", options.input_sentence_size()},
        {"seed", options.seed()},
        {"num_threads", options.num_threads()}}}};
  write_file_atomically((dir / SentencePieceTokenizer::kConfigFile).string(), config.dump(2) + "\n");
}

std::shared_ptr<SentencePieceTokenizer> SentencePieceTokenizer::from_dir(const std::string& dir) {
  return std::make_shared<SentencePieceTokenizer>((std::filesystem::path(dir) / kModelFile).string());
}

SentencePieceTokenizer::SentencePieceTokenizer(const std::string& model_file)
    : model_file_(model_file), processor_(std::make_unique<sentencepiece::SentencePieceProcessor>()) {
  TORCH_CHECK(std::filesystem::is_regular_file(model_file), "SentencePieceTokenizer: ", model_file,
              " does not exist (train one with train_sentencepiece, or point at a directory holding spm.model)");
  const auto status = processor_->Load(model_file);
  TORCH_CHECK(status.ok(), "SentencePieceTokenizer: cannot load ", model_file, ": ", status.ToString(),
              " (retrain it with train_sentencepiece)");
  vocab_size_ = processor_->GetPieceSize();
  // The framing and the model code assume RoBERTa's ids; a model trained with other ids must fail here.
  const std::pair<const char*, int64_t> expected[] = {
      {"<s>", kBosId}, {"<pad>", kPadId}, {"</s>", kEosId}, {"<unk>", kUnkId}, {"<mask>", kMaskId}};
  for (const auto& [piece, id] : expected) {
    TORCH_CHECK(processor_->PieceToId(piece) == id && id < vocab_size_, "SentencePieceTokenizer: ", model_file,
                " maps ", piece, " to id ", processor_->PieceToId(piece), ", expected ", id,
                " (RoBERTa's convention; retrain it with train_sentencepiece)");
  }
  TORCH_CHECK(processor_->unk_id() == kUnkId && processor_->bos_id() == kBosId && processor_->eos_id() == kEosId &&
                  processor_->pad_id() == kPadId,
              "SentencePieceTokenizer: ", model_file,
              " does not declare <s>/<pad>/</s>/<unk> as its bos/pad/eos/unk ids (retrain it with "
              "train_sentencepiece)");
}

SentencePieceTokenizer::~SentencePieceTokenizer() = default;

std::vector<std::string> SentencePieceTokenizer::tokenize(std::string_view text) const {
  std::vector<std::string> pieces;
  const auto status = processor_->Encode(text, &pieces);
  TORCH_CHECK(status.ok(), "SentencePieceTokenizer (", model_file_, "): encode failed: ", status.ToString());
  return pieces;
}

std::vector<int64_t> SentencePieceTokenizer::encode_text(std::string_view text) const {
  std::vector<int> ids;
  const auto status = processor_->Encode(text, &ids);
  TORCH_CHECK(status.ok(), "SentencePieceTokenizer (", model_file_, "): encode failed: ", status.ToString());
  return std::vector<int64_t>(ids.begin(), ids.end());
}

std::vector<int64_t> SentencePieceTokenizer::add_special_tokens(const std::vector<int64_t>& a,
                                                                const std::optional<std::vector<int64_t>>& b) const {
  std::vector<int64_t> ids;
  ids.reserve(a.size() + (b ? b->size() : 0) + static_cast<std::size_t>(num_special_tokens(b.has_value())));
  ids.push_back(kBosId);
  ids.insert(ids.end(), a.begin(), a.end());
  ids.push_back(kEosId);
  if (b) {
    ids.push_back(kEosId);
    ids.insert(ids.end(), b->begin(), b->end());
    ids.push_back(kEosId);
  }
  return ids;
}

std::string SentencePieceTokenizer::decode(const std::vector<int64_t>& ids, bool skip_special_tokens) const {
  std::string out;
  std::vector<int> run;  // consecutive ordinary ids, decoded together so SentencePiece restores spaces
  const auto append = [&out](const std::string& segment) {
    if (segment.empty()) return;
    if (!out.empty()) out += ' ';
    out += segment;
  };
  const auto flush = [&]() {
    if (run.empty()) return;
    std::string text;
    const auto status = processor_->Decode(run, &text);
    TORCH_CHECK(status.ok(), "SentencePieceTokenizer (", model_file_, "): decode failed: ", status.ToString());
    append(text);
    run.clear();
  };
  for (const int64_t id : ids) {
    TORCH_CHECK(id >= 0 && id < vocab_size_, "SentencePieceTokenizer::decode: id ", id, " outside [0, ",
                vocab_size_, ") of ", model_file_);
    if (!is_special(id)) {
      run.push_back(static_cast<int>(id));
      continue;
    }
    flush();
    if (!skip_special_tokens) append(processor_->IdToPiece(static_cast<int>(id)));
  }
  flush();
  return out;
}

const std::string& SentencePieceTokenizer::id_to_piece(int64_t id) const {
  TORCH_CHECK(id >= 0 && id < vocab_size_, "SentencePieceTokenizer::id_to_piece: id ", id, " outside [0, ",
              vocab_size_, ") of ", model_file_);
  return processor_->IdToPiece(static_cast<int>(id));
}

}  // namespace capaboost
