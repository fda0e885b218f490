#include "tokenizers/wordpiece_files.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "tokenizers/utf8.h"

namespace capaboost {

namespace {

constexpr const char* kFix = "use the files of a BERT checkpoint (e.g. bert-base-uncased, or `make backbone-minilm`)";

std::optional<std::string> read_optional_file(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  TORCH_CHECK(in.good(), "cannot read ", path.string(), "; check its permissions");
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

std::optional<nlohmann::json> read_optional_json(const std::filesystem::path& path) {
  const auto text = read_optional_file(path);
  if (!text) return std::nullopt;
  try {
    return nlohmann::json::parse(*text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for a number like 1e400
    TORCH_CHECK(false, path.string(), " is not valid JSON (", e.what(), "); replace it or remove it: ", kFix);
  }
}

// Python's text-mode readlines() with universal newlines, then rstrip("\n"): lines end at "\n", "\r\n"
// or "\r"; a last line without a newline counts, an empty remainder does not.
std::vector<std::string> vocab_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n' && text[i] != '\r') {
      line += text[i];
      continue;
    }
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
    lines.push_back(std::move(line));
    line.clear();
  }
  if (!line.empty()) lines.push_back(std::move(line));
  return lines;
}

// A string value of `object[key]`, which may also be written {"content": "..."} (transformers' AddedToken
// form); `fallback` when the key is absent or null.
std::string token_name(const nlohmann::json& object, const char* key, const std::string& fallback,
                       const std::string& file) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return fallback;
  if (it->is_string()) return it->get<std::string>();
  TORCH_CHECK(it->is_object() && it->contains("content") && (*it)["content"].is_string(), file, ": \"", key,
              "\" must be a string or {\"content\": \"...\"}, got ", it->dump(), "; ", kFix);
  return (*it)["content"].get<std::string>();
}

template <typename T>
T value_or(const nlohmann::json& object, const char* key, const T& fallback, const std::string& file) {
  const auto it = object.find(key);
  if (it == object.end()) return fallback;
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    TORCH_CHECK(false, file, ": \"", key, "\" has the wrong type (", it->dump(), "); ", kFix);
  }
}

// "strip_accents": null (follow lowercase), true or false.
std::optional<bool> optional_bool(const nlohmann::json& object, const char* key, const std::optional<bool>& fallback,
                                  const std::string& file) {
  const auto it = object.find(key);
  if (it == object.end()) return fallback;
  if (it->is_null()) return std::nullopt;
  TORCH_CHECK(it->is_boolean(), file, ": \"", key, "\" must be true, false or null, got ", it->dump(), "; ", kFix);
  return it->get<bool>();
}

const nlohmann::json& section(const nlohmann::json& tokenizer, const char* key, const char* type,
                              const std::string& file) {
  const auto it = tokenizer.find(key);
  TORCH_CHECK(it != tokenizer.end() && it->is_object() && it->value("type", "") == type, file, ": \"", key,
              "\" must be {\"type\": \"", type, "\", ...} for BERT's WordPiece tokenizer, got ",
              it == tokenizer.end() ? std::string("nothing") : it->dump().substr(0, 200), "; ", kFix);
  return *it;
}

// tokenizer.json: normaliser, model and decoder options; its vocabulary must be vocab.txt's and its added
// tokens the special tokens, matched verbatim (what this tokenizer implements).
void read_tokenizer_json(const nlohmann::json& tokenizer, const std::string& file,
                         const std::unordered_map<std::string, int64_t>& vocab, WordPieceOptions& options) {
  TORCH_CHECK(tokenizer.is_object(), file, " must be a JSON object; ", kFix);
  const auto& normalizer = section(tokenizer, "normalizer", "BertNormalizer", file);
  section(tokenizer, "pre_tokenizer", "BertPreTokenizer", file);
  const auto& model = section(tokenizer, "model", "WordPiece", file);
  BertNormalizerOptions& norm = options.normalizer();
  norm.clean_text(value_or(normalizer, "clean_text", norm.clean_text(), file));
  norm.handle_chinese_chars(value_or(normalizer, "handle_chinese_chars", norm.handle_chinese_chars(), file));
  norm.strip_accents(optional_bool(normalizer, "strip_accents", norm.strip_accents(), file));
  norm.lowercase(value_or(normalizer, "lowercase", norm.lowercase(), file));
  options.unk_token(value_or(model, "unk_token", options.unk_token(), file));
  options.continuing_subword_prefix(
      value_or(model, "continuing_subword_prefix", options.continuing_subword_prefix(), file));
  options.max_input_chars_per_word(
      value_or(model, "max_input_chars_per_word", options.max_input_chars_per_word(), file));
  if (const auto decoder = tokenizer.find("decoder"); decoder != tokenizer.end() && !decoder->is_null()) {
    const auto& wordpiece = section(tokenizer, "decoder", "WordPiece", file);
    TORCH_CHECK(value_or(wordpiece, "prefix", options.continuing_subword_prefix(), file) ==
                    options.continuing_subword_prefix(),
                file, ": the decoder's prefix differs from the model's continuing_subword_prefix; ", kFix);
    options.decode_cleanup(value_or(wordpiece, "cleanup", options.decode_cleanup(), file));
  }
  if (const auto json_vocab = model.find("vocab"); json_vocab != model.end()) {
    TORCH_CHECK(json_vocab->is_object() && json_vocab->size() == vocab.size(), file, ": the model's vocabulary has ",
                json_vocab->size(), " tokens, vocab.txt ", vocab.size(), "; the two files do not belong together");
    for (const auto& [token, id] : json_vocab->items()) {
      const auto it = vocab.find(token);
      TORCH_CHECK(it != vocab.end() && id.is_number_integer() && id.get<int64_t>() == it->second, file,
                  ": the model's token \"", token, "\" (id ", id.dump(), ") is not at that line of vocab.txt; the two "
                  "files do not belong together");
    }
  }
}

// tokenizer.json's added tokens must be special tokens matched verbatim: what encode_text implements.
void check_added_tokens(const nlohmann::json& tokenizer, const std::string& file, const WordPieceOptions& options) {
  const auto added = tokenizer.find("added_tokens");
  if (added == tokenizer.end() || added->is_null()) return;
  TORCH_CHECK(added->is_array(), file, ": \"added_tokens\" must be a list; ", kFix);
  for (const auto& token : *added) {
    const std::string content = value_or(token, "content", std::string(), file);
    const bool special = content == options.cls_token() || content == options.sep_token() ||
                         content == options.pad_token() || content == options.unk_token() ||
                         content == options.mask_token();
    TORCH_CHECK(special && !value_or(token, "normalized", false, file) && !value_or(token, "lstrip", false, file) &&
                    !value_or(token, "rstrip", false, file) && !value_or(token, "single_word", false, file),
                file, ": added token ", token.dump(), " is not supported: only the special tokens (",
                options.cls_token(), " ", options.sep_token(), " ", options.pad_token(), " ", options.unk_token(), " ",
                options.mask_token(), "), matched verbatim (normalized, lstrip, rstrip and single_word false)");
  }
}

}  // namespace

std::vector<std::string> read_wordpiece_vocab(const std::string& directory) {
  const auto vocab_path = std::filesystem::path(directory) / "vocab.txt";
  const auto vocab_text = read_optional_file(vocab_path);
  TORCH_CHECK(vocab_text.has_value(), "no ", vocab_path.string(), ": a WordPiece tokenizer directory needs vocab.txt; ",
              kFix);
  check_utf8(*vocab_text, vocab_path.string().c_str());
  auto tokens = vocab_lines(*vocab_text);
  TORCH_CHECK(!tokens.empty(), vocab_path.string(), " holds no tokens; ", kFix);
  return tokens;
}

WordPieceFiles read_wordpiece_files(const std::string& directory) {
  const std::filesystem::path dir(directory);
  WordPieceFiles files;
  files.tokens = read_wordpiece_vocab(directory);
  // A repeated token keeps its last line, as transformers' load_vocab.
  std::unordered_map<std::string, int64_t> vocab;
  for (std::size_t id = 0; id < files.tokens.size(); ++id) vocab[files.tokens[id]] = static_cast<int64_t>(id);

  WordPieceOptions& options = files.options;
  const std::string config_file = (dir / "tokenizer_config.json").string();
  const auto config = read_optional_json(config_file).value_or(nlohmann::json::object());
  TORCH_CHECK(config.is_object(), config_file, " must be a JSON object; ", kFix);
  options.cls_token(token_name(config, "cls_token", options.cls_token(), config_file));
  options.sep_token(token_name(config, "sep_token", options.sep_token(), config_file));
  options.pad_token(token_name(config, "pad_token", options.pad_token(), config_file));
  options.unk_token(token_name(config, "unk_token", options.unk_token(), config_file));
  options.mask_token(token_name(config, "mask_token", options.mask_token(), config_file));

  const std::string tokenizer_file = (dir / "tokenizer.json").string();
  if (const auto tokenizer = read_optional_json(tokenizer_file)) {
    read_tokenizer_json(*tokenizer, tokenizer_file, vocab, options);
    check_added_tokens(*tokenizer, tokenizer_file, options);
  }
  // BertTokenizerFast's own arguments (from tokenizer_config.json, else their defaults) replace the
  // normaliser's settings.
  BertNormalizerOptions& norm = options.normalizer();
  norm.lowercase(value_or(config, "do_lower_case", true, config_file));
  norm.strip_accents(optional_bool(config, "strip_accents", std::nullopt, config_file));
  norm.handle_chinese_chars(value_or(config, "tokenize_chinese_chars", true, config_file));
  return files;
}

}  // namespace capaboost
