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

#include "util/atomic_file.h"
#include "util/sha256.h"

namespace capaboost {

namespace {

constexpr std::string_view kMetaspace = "\xe2\x96\x81";  // U+2581, SentencePiece's visible space
// SentencePiece's penalty for an unknown character in the unigram lattice (unigram_model.cc kUnkPenalty).
constexpr float kUnkPenalty = 10.0f;

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

// ---- reading spm.model: the few ModelProto fields the tokenizer needs ------------------------------
// sentencepiece_model.proto: ModelProto { repeated SentencePiece pieces = 1; TrainerSpec trainer_spec = 2;
// NormalizerSpec normalizer_spec = 3; }  SentencePiece { string piece = 1; float score = 2; Type type = 3; }
// TrainerSpec { ModelType model_type = 3; }  NormalizerSpec { string name = 1; bool add_dummy_prefix = 3;
// bool remove_extra_whitespaces = 4; }

class ProtoReader {
 public:
  ProtoReader(std::string_view data, const std::string& file) : data_(data), file_(file) {}
  bool done() const { return pos_ >= data_.size(); }
  uint64_t varint() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      check(pos_ < data_.size());
      const uint8_t byte = static_cast<uint8_t>(data_[pos_++]);
      value |= static_cast<uint64_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    check(false);
    return 0;
  }
  std::string_view bytes() {
    const uint64_t size = varint();
    check(size <= data_.size() - pos_);
    const std::string_view out = data_.substr(pos_, size);
    pos_ += size;
    return out;
  }
  float fixed32_float() {
    check(data_.size() - pos_ >= 4);
    uint32_t bits = 0;
    for (int i = 3; i >= 0; --i) bits = (bits << 8) | static_cast<uint8_t>(data_[pos_ + i]);  // little-endian
    pos_ += 4;
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    return value;
  }
  void skip(uint32_t wire_type) {
    switch (wire_type) {
      case 0: varint(); break;
      case 1: check(data_.size() - pos_ >= 8); pos_ += 8; break;
      case 2: bytes(); break;
      case 5: check(data_.size() - pos_ >= 4); pos_ += 4; break;
      default: check(false);
    }
  }

 private:
  void check(bool ok) const {
    TORCH_CHECK(ok, "SentencePieceTokenizer: ", file_, " is not a valid SentencePiece model (malformed protobuf); "
                "retrain it with train_sentencepiece");
  }
  std::string_view data_;
  const std::string& file_;
  std::size_t pos_ = 0;
};

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

SentencePieceTokenizer::SentencePieceTokenizer(const std::string& model_file) : model_file_(model_file) {
  TORCH_CHECK(std::filesystem::is_regular_file(model_file), "SentencePieceTokenizer: ", model_file,
              " does not exist (train one with train_sentencepiece, or point at a directory holding spm.model)");
  const std::string data = read_bytes(model_file);
  int64_t model_type = 1;  // proto default UNIGRAM
  std::string normalizer = "";
  ProtoReader model(data, model_file);
  while (!model.done()) {
    const uint64_t tag = model.varint();
    const uint32_t field = static_cast<uint32_t>(tag >> 3), wire = static_cast<uint32_t>(tag & 7);
    if (field == 1 && wire == 2) {
      Piece piece;
      ProtoReader message(model.bytes(), model_file);
      while (!message.done()) {
        const uint64_t t = message.varint();
        if (t == (1 << 3 | 2)) piece.text = std::string(message.bytes());
        else if (t == (2 << 3 | 5)) piece.score = message.fixed32_float();
        else if (t == (3 << 3 | 0)) piece.type = static_cast<PieceType>(message.varint());
        else message.skip(static_cast<uint32_t>(t & 7));
      }
      pieces_.push_back(std::move(piece));
    } else if (field == 2 && wire == 2) {
      ProtoReader spec(model.bytes(), model_file);
      while (!spec.done()) {
        const uint64_t t = spec.varint();
        if (t == (3 << 3 | 0)) model_type = static_cast<int64_t>(spec.varint());
        else spec.skip(static_cast<uint32_t>(t & 7));
      }
    } else if (field == 3 && wire == 2) {
      ProtoReader spec(model.bytes(), model_file);
      while (!spec.done()) {
        const uint64_t t = spec.varint();
        if (t == (1 << 3 | 2)) normalizer = std::string(spec.bytes());
        else if (t == (3 << 3 | 0)) add_dummy_prefix_ = spec.varint() != 0;
        else if (t == (4 << 3 | 0)) remove_extra_whitespaces_ = spec.varint() != 0;
        else spec.skip(static_cast<uint32_t>(t & 7));
      }
    } else {
      model.skip(wire);
    }
  }
  vocab_size_ = static_cast<int64_t>(pieces_.size());
  TORCH_CHECK(model_type == 1 || model_type == 2, "SentencePieceTokenizer: ", model_file, " has model type ",
              model_type, "; only unigram (1) and BPE (2) are supported (retrain it with train_sentencepiece)");
  bpe_ = model_type == 2;
  TORCH_CHECK(normalizer == "identity", "SentencePieceTokenizer: ", model_file, " uses the \"", normalizer,
              "\" normaliser; this tokenizer reads identity-normalised models (retrain it with train_sentencepiece)");

  // The framing and the model code assume RoBERTa's ids; a model trained with other ids must fail here.
  const std::pair<const char*, PieceType> expected[] = {{"<s>", PieceType::kControl},
                                                        {"<pad>", PieceType::kControl},
                                                        {"</s>", PieceType::kControl},
                                                        {"<unk>", PieceType::kUnknown},
                                                        {"<mask>", PieceType::kUserDefined}};
  for (int64_t id = 0; id <= kMaskId; ++id) {
    TORCH_CHECK(id < vocab_size_ && pieces_[id].text == expected[id].first && pieces_[id].type == expected[id].second,
                "SentencePieceTokenizer: ", model_file, " does not have ", expected[id].first, " at id ", id,
                " (RoBERTa's convention; retrain it with train_sentencepiece)");
  }

  min_score_ = std::numeric_limits<float>::max();
  trie_.emplace_back();
  for (int64_t id = 0; id < vocab_size_; ++id) {
    const Piece& piece = pieces_[id];
    if (piece.type != PieceType::kNormal && piece.type != PieceType::kUserDefined) continue;
    TORCH_CHECK(!piece.text.empty(), "SentencePieceTokenizer: ", model_file, " has an empty piece at id ", id);
    if (piece.type == PieceType::kNormal) min_score_ = std::min(min_score_, piece.score);
    matchable_.emplace(piece.text, id);
    int32_t node = 0;
    for (const char c : piece.text) {
      int32_t child = trie_child(node, static_cast<uint8_t>(c));
      if (child < 0) {
        child = static_cast<int32_t>(trie_.size());
        trie_[node].children.emplace_back(static_cast<uint8_t>(c), child);
        trie_.emplace_back();
      }
      node = child;
    }
    trie_[node].id = static_cast<int32_t>(id);
  }
  if (min_score_ == std::numeric_limits<float>::max()) min_score_ = 0.0f;
}

int32_t SentencePieceTokenizer::trie_child(int32_t node, uint8_t byte) const {
  for (const auto& [b, child] : trie_[node].children) {
    if (b == byte) return child;
  }
  return -1;
}

std::string SentencePieceTokenizer::normalize(std::string_view text) const {
  // Identity normalisation leaves characters alone; only spaces change. ASCII whitespace other than
  // ' ' counts as a space too (SentencePiece's identity rule would keep a tab as an unknown character).
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  std::string out;
  out.reserve(text.size() + text.size() / 4 + 3);
  bool pending_space = false;
  for (const char c : text) {
    if (is_space(c) && remove_extra_whitespaces_) {
      pending_space = true;  // a run of spaces: one U+2581 if more text follows, none at either end
      continue;
    }
    if (out.empty() && add_dummy_prefix_) out += kMetaspace;
    if (pending_space && out.size() > (add_dummy_prefix_ ? kMetaspace.size() : 0)) out += kMetaspace;
    pending_space = false;
    if (is_space(c)) out += kMetaspace;
    else out += c;
  }
  return out;
}

void SentencePieceTokenizer::encode_unigram(std::string_view s, std::vector<int64_t>& ids) const {
  // Viterbi over the lattice of pieces: best[i] is the best total score of a segmentation of s[0, i).
  // User-defined symbols score 0, above any normal piece's (negative) log-probability, so they win.
  const std::size_t n = s.size();
  constexpr float kNone = -std::numeric_limits<float>::infinity();
  std::vector<float> best(n + 1, kNone);
  std::vector<int32_t> from(n + 1, -1), piece(n + 1, -1);
  best[0] = 0.0f;
  for (std::size_t start = 0; start < n; ++start) {
    if (best[start] == kNone) continue;
    const auto lead = static_cast<uint8_t>(s[start]);
    const std::size_t char_bytes = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    bool single_char_piece = false;
    int32_t node = 0;
    for (std::size_t end = start; end < n;) {
      node = trie_child(node, static_cast<uint8_t>(s[end]));
      if (node < 0) break;
      ++end;
      const int32_t id = trie_[node].id;
      if (id < 0) continue;
      const float score = best[start] + (pieces_[id].type == PieceType::kUserDefined ? 0.0f : pieces_[id].score);
      if (end == start + char_bytes) single_char_piece = true;
      if (score > best[end]) {
        best[end] = score;
        from[end] = static_cast<int32_t>(start);
        piece[end] = id;
      }
    }
    if (!single_char_piece) {
      const std::size_t end = std::min(n, start + char_bytes);
      const float score = best[start] + min_score_ - kUnkPenalty;
      if (score > best[end]) {
        best[end] = score;
        from[end] = static_cast<int32_t>(start);
        piece[end] = static_cast<int32_t>(kUnkId);
      }
    }
  }
  std::vector<int64_t> reversed;
  for (std::size_t end = n; end > 0; end = static_cast<std::size_t>(from[end])) reversed.push_back(piece[end]);
  for (auto it = reversed.rbegin(); it != reversed.rend(); ++it) {
    // Consecutive unknown characters become one <unk>, as in SentencePiece.
    if (*it == kUnkId && !ids.empty() && ids.back() == kUnkId) continue;
    ids.push_back(*it);
  }
}

void SentencePieceTokenizer::encode_bpe(std::string_view s, std::vector<int64_t>& ids) const {
  // Symbols start as characters (a user-defined symbol is one symbol); the adjacent pair whose
  // concatenation is the best-scoring piece merges first, leftmost on ties, until no pair is a piece.
  struct Symbol {
    std::size_t begin, size;
  };
  std::vector<Symbol> symbols;
  for (std::size_t pos = 0; pos < s.size();) {
    std::size_t size = 0;
    int32_t node = 0;
    for (std::size_t end = pos; end < s.size();) {  // longest user-defined symbol starting here
      node = trie_child(node, static_cast<uint8_t>(s[end]));
      if (node < 0) break;
      ++end;
      if (trie_[node].id >= 0 && pieces_[trie_[node].id].type == PieceType::kUserDefined) size = end - pos;
    }
    if (size == 0) {
      const auto lead = static_cast<uint8_t>(s[pos]);
      size = std::min(s.size() - pos, static_cast<std::size_t>(lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4));
    }
    symbols.push_back({pos, size});
    pos += size;
  }
  while (symbols.size() > 1) {
    std::size_t best_index = symbols.size();
    float best_score = -std::numeric_limits<float>::infinity();
    for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
      const auto it = matchable_.find(s.substr(symbols[i].begin, symbols[i].size + symbols[i + 1].size));
      if (it == matchable_.end() || pieces_[it->second].type != PieceType::kNormal) continue;
      if (pieces_[it->second].score > best_score) {
        best_score = pieces_[it->second].score;
        best_index = i;
      }
    }
    if (best_index == symbols.size()) break;
    symbols[best_index].size += symbols[best_index + 1].size;
    symbols.erase(symbols.begin() + static_cast<std::ptrdiff_t>(best_index) + 1);
  }
  for (const Symbol& symbol : symbols) {
    const auto it = matchable_.find(s.substr(symbol.begin, symbol.size));
    const int64_t id = it == matchable_.end() ? kUnkId : it->second;
    if (id == kUnkId && !ids.empty() && ids.back() == kUnkId) continue;
    ids.push_back(id);
  }
}

std::vector<std::string> SentencePieceTokenizer::tokenize(std::string_view text) const {
  std::vector<std::string> pieces;
  for (const int64_t id : encode_text(text)) pieces.push_back(pieces_[id].text);
  return pieces;
}

std::vector<int64_t> SentencePieceTokenizer::encode_text(std::string_view text) const {
  const std::string normalized = normalize(text);
  std::vector<int64_t> ids;
  ids.reserve(normalized.size() / 3 + 1);
  if (bpe_) encode_bpe(normalized, ids);
  else encode_unigram(normalized, ids);
  return ids;
}

std::vector<int64_t> SentencePieceTokenizer::add_special_tokens(const std::vector<int64_t>& a,
                                                                const std::optional<std::vector<int64_t>>& b) const {
  return roberta_framing(a, b, kBosId, kEosId);
}

std::string SentencePieceTokenizer::decode(const std::vector<int64_t>& ids, bool skip_special_tokens) const {
  std::string out;
  std::string run;  // pieces of consecutive ordinary ids, still with U+2581 for spaces
  const auto append = [&out](std::string_view segment) {
    if (segment.empty()) return;
    if (!out.empty()) out += ' ';
    out += segment;
  };
  const auto flush = [&]() {
    if (run.empty()) return;
    std::string text;
    text.reserve(run.size());
    for (std::size_t pos = 0; pos < run.size();) {
      if (run.compare(pos, kMetaspace.size(), kMetaspace) == 0) {
        text += ' ';
        pos += kMetaspace.size();
      } else {
        text += run[pos++];
      }
    }
    // The dummy prefix added at encoding is not part of the text.
    std::string_view view = text;
    if (add_dummy_prefix_ && !view.empty() && view.front() == ' ') view.remove_prefix(1);
    append(view);
    run.clear();
  };
  for (const int64_t id : ids) {
    TORCH_CHECK(id >= 0 && id < vocab_size_, "SentencePieceTokenizer::decode: id ", id, " outside [0, ",
                vocab_size_, ") of ", model_file_);
    if (is_special(id)) {
      flush();
      if (!skip_special_tokens) append(pieces_[id].text);
    } else {
      run += pieces_[id].text;
    }
  }
  flush();
  return out;
}

const std::string& SentencePieceTokenizer::id_to_piece(int64_t id) const {
  TORCH_CHECK(id >= 0 && id < vocab_size_, "SentencePieceTokenizer::id_to_piece: id ", id, " outside [0, ",
              vocab_size_, ") of ", model_file_);
  return pieces_[id].text;
}

}  // namespace capaboost
