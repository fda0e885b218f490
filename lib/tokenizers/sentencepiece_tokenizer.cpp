#include "tokenizers/sentencepiece_tokenizer.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tokenizers/utf8.h"
#include "util/atomic_file.h"
#include "util/sha256.h"

namespace capaboost {

namespace {

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  TORCH_CHECK(in, "cannot open ", path);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// ---- training: Debian's spm_train in a child process ----------------------------------------------

std::string find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return {};
}

// Removes the scratch directory however training ends.
struct ScratchDir {
  std::filesystem::path path;
  ~ScratchDir() {
    std::error_code ignored;
    if (!path.empty()) std::filesystem::remove_all(path, ignored);
  }
};

// Runs `argv` in `dir` with stdout and stderr to `log`; returns the exit status (or -1 if it died).
int run_in_dir(const std::vector<std::string>& argv, const std::filesystem::path& dir, const std::filesystem::path& log) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  TORCH_CHECK(pid >= 0, "train_sentencepiece: fork failed: ", std::strerror(errno));
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec.
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ::chdir(dir.c_str()) != 0 || ::dup2(fd, 1) < 0 || ::dup2(fd, 2) < 0) ::_exit(126);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    TORCH_CHECK(errno == EINTR, "train_sentencepiece: waitpid failed: ", std::strerror(errno));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
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
  TORCH_CHECK(options.model_type() == "unigram" || options.model_type() == "bpe",
              "train_sentencepiece: model_type must be \"unigram\" or \"bpe\", got \"", options.model_type(), "\"");
  TORCH_CHECK(options.num_threads() >= 1, "train_sentencepiece: num_threads must be >= 1, got ",
              options.num_threads());
  // spm_train's seed is 32-bit and reserves its largest value for "seed from the clock".
  TORCH_CHECK(options.seed() < std::numeric_limits<uint32_t>::max(), "train_sentencepiece: seed must be below 2^32 - 1, got ",
              options.seed());
  const std::string spm_train = find_on_path("spm_train");
  TORCH_CHECK(!spm_train.empty(), "train_sentencepiece: spm_train is not on PATH (Debian package sentencepiece; run "
              "`make deps`)");

  std::error_code error;
  std::filesystem::create_directories(out_dir, error);
  TORCH_CHECK(!error, "train_sentencepiece: cannot create ", out_dir, ": ", error.message());
  const std::filesystem::path dir(out_dir);
  ScratchDir scratch;
  std::string pattern = (dir / ".spm-train-XXXXXX").string();
  TORCH_CHECK(::mkdtemp(pattern.data()) != nullptr, "train_sentencepiece: cannot create a scratch directory in ",
              out_dir, ": ", std::strerror(errno));
  scratch.path = pattern;
  // The model records its input and output names; fixed names in a scratch directory keep spm.model
  // independent of where the text lives.
  std::filesystem::create_symlink(std::filesystem::absolute(text_file), scratch.path / "input.txt");

  const std::vector<std::string> argv = {
      spm_train,
      "--input=input.txt",
      "--model_prefix=spm",
      "--model_type=" + options.model_type(),
      "--vocab_size=" + std::to_string(options.vocab_size()),
      "--character_coverage=" + format_double(options.character_coverage()),
      "--input_sentence_size=" + std::to_string(options.input_sentence_size()),
      "--shuffle_input_sentence=true",
      "--num_threads=" + std::to_string(options.num_threads()),
      "--random_seed=" + std::to_string(options.seed()),
      // RoBERTa's ids, so the RoBERTa embedding and MLM code need no remapping.
      "--bos_id=0", "--pad_id=1", "--eos_id=2", "--unk_id=3",
      "--bos_piece=<s>", "--pad_piece=<pad>", "--eos_piece=</s>", "--unk_piece=<unk>",
      "--user_defined_symbols=<mask>",
      // Identity normalisation: the encoder in this file then only has to reproduce whitespace handling.
      "--normalization_rule_name=identity",
      "--minloglevel=1"};
  const int status = run_in_dir(argv, scratch.path, scratch.path / "spm_train.log");
  if (status != 0) {
    std::string log = read_bytes((scratch.path / "spm_train.log").string());
    if (log.size() > 2000) log = "..." + log.substr(log.size() - 2000);
    TORCH_CHECK(false, "train_sentencepiece: spm_train on ", text_file, " exited with status ", status, ":\n", log);
  }
  const std::string model = read_bytes((scratch.path / "spm.model").string());
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
       {{"text_sha256", sha256_hex(read_bytes(text_file))},
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
    : model_(std::make_unique<SentencePieceModel>(
          model_file, "train one with train_sentencepiece, or point at a directory holding spm.model")) {
  TORCH_CHECK(model_->normalizer_name() == "identity", "SentencePieceTokenizer: ", model_file, " uses the \"",
              model_->normalizer_name(),
              "\" normaliser; this tokenizer reads identity-normalised models (retrain it with train_sentencepiece)");
  // The framing and the model code assume RoBERTa's ids; a model trained with other ids must fail here.
  using Type = SentencePieceModel::PieceType;
  const std::pair<const char*, Type> expected[] = {{"<s>", Type::kControl},
                                                   {"<pad>", Type::kControl},
                                                   {"</s>", Type::kControl},
                                                   {"<unk>", Type::kUnknown},
                                                   {"<mask>", Type::kUserDefined}};
  for (int64_t id = 0; id <= kMaskId; ++id) {
    TORCH_CHECK(id < model_->size() && model_->piece(id) == expected[id].first && model_->type(id) == expected[id].second,
                "SentencePieceTokenizer: ", model_file, " does not have ", expected[id].first, " at id ", id,
                " (RoBERTa's convention; retrain it with train_sentencepiece)");
  }
}

std::vector<std::string> SentencePieceTokenizer::tokenize(std::string_view text) const {
  std::vector<std::string> pieces;
  for (const int64_t id : encode_text(text)) pieces.push_back(model_->piece(id));
  return pieces;
}

std::vector<int64_t> SentencePieceTokenizer::encode_text(std::string_view text) const { return model_->encode(text); }

std::vector<TokenOffsets> SentencePieceTokenizer::encode_text_with_offsets(std::string_view text) const {
  const auto chars = code_points_before(text);
  std::vector<TokenOffsets> tokens;
  for (const auto& span : model_->encode_with_spans(text)) tokens.push_back({span.id, chars[span.begin], chars[span.end]});
  return tokens;
}

std::vector<int64_t> SentencePieceTokenizer::add_special_tokens(const std::vector<int64_t>& a,
                                                                const std::optional<std::vector<int64_t>>& b) const {
  return roberta_framing(a, b, kBosId, kEosId);
}

std::string SentencePieceTokenizer::decode(const std::vector<int64_t>& ids, bool skip_special_tokens) const {
  return decode_with_specials(
      *model_, ids,
      [this](int64_t id) { return is_special(id) ? std::optional<std::string>(model_->piece(id)) : std::nullopt; },
      skip_special_tokens);
}

const std::string& SentencePieceTokenizer::id_to_piece(int64_t id) const { return model_->piece(id); }

}  // namespace capaboost
