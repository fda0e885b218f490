// ByteLevelBpeTokenizer on the genuine roberta-base files against golden outputs of Hugging Face
// transformers 4.30.2 (slow RobertaTokenizer.from_pretrained). Every roberta_*.jsonl row and every
// roberta_*.json batch file of <golden>/tokenizer is checked, field by field; new rows and files are picked
// up without code changes, and an unknown field fails the test rather than going unchecked.
//   CAPABOOST_GOLDEN_DIR  (default <source>/../shared/golden)
//   CAPABOOST_DATA_DIR    (default <source>/../shared/data), for tokenizers/roberta-base/
// Missing folders skip the tests with a warning.

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "tokenizers/byte_level_bpe_tokenizer.h"

using namespace capaboost;
namespace fs = std::filesystem;
using Ids = std::vector<int64_t>;

namespace {

fs::path env_dir(const char* variable, const char* fallback) {
  const char* value = std::getenv(variable);
  return value != nullptr && *value != '\0' ? fs::path(value) : fs::path(fallback);
}

fs::path golden_tokenizer_dir() {
  return env_dir("CAPABOOST_GOLDEN_DIR", CAPABOOST_SOURCE_DIR "/../shared/golden") / "tokenizer";
}

fs::path roberta_files_dir() {
  return env_dir("CAPABOOST_DATA_DIR", CAPABOOST_SOURCE_DIR "/../shared/data") / "tokenizers" /
         "roberta-base";
}

// Golden files named roberta_*<extension>, sorted; empty (with a WARN naming what is missing) when the
// golden folder or the tokenizer files are absent.
std::vector<fs::path> golden_files(const std::string& extension) {
  const fs::path golden = golden_tokenizer_dir();
  const fs::path files = roberta_files_dir();
  if (!fs::is_directory(golden) || !fs::exists(files / "vocab.json")) {
    WARN("RoBERTa golden tokenizer test skipped: needs " << golden << " (set CAPABOOST_GOLDEN_DIR) and "
                                                         << files / "vocab.json"
                                                         << " (set CAPABOOST_DATA_DIR)");
    return {};
  }
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(golden)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("roberta_", 0) == 0 && entry.path().extension() == extension)
      found.push_back(entry.path());
  }
  std::sort(found.begin(), found.end());
  return found;
}

const ByteLevelBpeTokenizer& roberta(bool add_prefix_space = false) {
  static const auto plain = std::make_unique<ByteLevelBpeTokenizer>(roberta_files_dir().string());
  static const auto prefixed = std::make_unique<ByteLevelBpeTokenizer>(
      roberta_files_dir().string(), ByteLevelBpeOptions().add_prefix_space(true));
  return add_prefix_space ? *prefixed : *plain;
}

std::vector<Ids> rows_of(const torch::Tensor& matrix) {
  std::vector<Ids> rows;
  for (int64_t r = 0; r < matrix.size(0); ++r) {
    const auto row = matrix[r].contiguous();
    rows.emplace_back(row.data_ptr<int64_t>(), row.data_ptr<int64_t>() + row.numel());
  }
  return rows;
}

int64_t number_in(const std::string& key, const std::regex& pattern) {
  std::smatch match;
  REQUIRE(std::regex_match(key, match, pattern));
  return std::stoll(match[1].str());
}

// Checks every field of one golden row (single text, or pair when it has text_pair).
void check_row(const nlohmann::json& row) {
  static const std::regex kTruncSingle(R"(input_ids_trunc(\d+))");
  static const std::regex kTruncPair(R"(input_ids_trunc(\d+)_longest_first)");
  const auto& tokenizer = roberta();
  const std::string text = row.at("text").get<std::string>();
  std::optional<std::string> pair;
  if (row.contains("text_pair")) pair = row.at("text_pair").get<std::string>();
  const std::optional<std::string_view> pair_view =
      pair ? std::optional<std::string_view>(*pair) : std::nullopt;
  REQUIRE(row.contains("input_ids"));
  for (const auto& [key, value] : row.items()) {
    INFO("field " << key);
    if (key == "id" || key == "text" || key == "text_pair") continue;
    if (key == "tokens") {
      CHECK(tokenizer.tokenize(text) == value.get<std::vector<std::string>>());
    } else if (key == "ids_no_special" || key == "ids_a_no_special") {
      CHECK(tokenizer.encode_text(text) == value.get<Ids>());
    } else if (key == "ids_b_no_special" && pair) {
      CHECK(tokenizer.encode_text(*pair) == value.get<Ids>());
    } else if (key == "ids_no_special_prefix_space") {
      CHECK(roberta(/*add_prefix_space=*/true).encode_text(text) == value.get<Ids>());
    } else if (key == "input_ids") {
      CHECK(tokenizer.encode(text, pair_view).input_ids == value.get<Ids>());
    } else if (key == "attention_mask") {
      CHECK(tokenizer.encode(text, pair_view).attention_mask == value.get<Ids>());
    } else if (std::regex_match(key, pair ? kTruncPair : kTruncSingle)) {
      const auto options =
          EncodeOptions().truncation(true).max_length(number_in(key, pair ? kTruncPair : kTruncSingle));
      CHECK(tokenizer.encode(text, pair_view, options).input_ids == value.get<Ids>());
    } else if (key == "decoded" && !pair) {
      CHECK(tokenizer.decode(row.at("input_ids").get<Ids>()) == value.get<std::string>());
    } else if (key == "decoded_skip_special" && !pair) {
      CHECK(tokenizer.decode(row.at("input_ids").get<Ids>(), /*skip_special_tokens=*/true) ==
            value.get<std::string>());
    } else {
      FAIL_CHECK("golden field '" << key << "' is not checked by this test; add its check");
    }
  }
}

}  // namespace

TEST_CASE("RoBERTa tokenizer matches transformers 4.30.2 on every golden row", "[tokenizers][golden]") {
  const auto files = golden_files(".jsonl");
  if (files.empty()) return;
  int64_t rows = 0;
  for (const auto& path : files) {
    std::ifstream in(path);
    std::string line;
    for (int64_t number = 1; std::getline(in, line); ++number) {
      if (line.empty()) continue;
      const auto row = nlohmann::json::parse(line);
      INFO(path.filename().string() << " line " << number << " (id " << row.value("id", -1) << "): text "
                                    << row.at("text").dump());
      check_row(row);
      ++rows;
    }
  }
  CHECK(rows >= 290);  // 227 single + 68 pair rows at the time of writing; more are welcome
}

TEST_CASE("RoBERTa batch encoding matches transformers 4.30.2 golden batches", "[tokenizers][golden]") {
  const auto files = golden_files(".json");
  if (files.empty()) return;
  // (pairs_)padding_longest or (pairs_)padding_max_length<N>[_truncation]
  static const std::regex kBatch(R"((pairs_)?padding_(longest|max_length(\d+))(_truncation)?)");
  static const std::regex kSpecial(R"((bos|pad|eos|unk|mask)\((.+)\))");
  const auto& tokenizer = roberta();
  for (const auto& path : files) {
    std::ifstream in(path);
    const auto batch = nlohmann::json::parse(in);
    const auto texts = batch.at("texts").get<std::vector<std::string>>();
    for (const auto& [key, value] : batch.items()) {
      INFO(path.filename().string() << " field " << key);
      std::smatch match;
      if (key == "texts" || key == "pairs" || key == "tokenizer_init") continue;  // inputs and a description
      if (std::regex_match(key, match, kBatch)) {
        const bool max_length = match[2].str() != "longest";
        auto options = EncodeOptions().truncation(match[4].matched);
        if (max_length) options.max_length(std::stoll(match[3].str()));
        const Padding padding = max_length ? Padding::kMaxLength : Padding::kLongest;
        const BatchEncoding encoded =
            match[1].matched ? tokenizer.encode_batch(
                                   texts, batch.at("pairs").get<std::vector<std::string>>(), options, padding)
                             : tokenizer.encode_batch(texts, options, padding);
        CHECK(rows_of(encoded.input_ids) == value.at("input_ids").get<std::vector<Ids>>());
        CHECK(rows_of(encoded.attention_mask) == value.at("attention_mask").get<std::vector<Ids>>());
        CHECK(value.size() == 2);
      } else if (key == "special_ids") {
        for (const auto& [name, id] : value.items()) {
          INFO("special " << name);
          REQUIRE(std::regex_match(name, match, kSpecial));
          CHECK(tokenizer.token_to_id(match[2].str()) == id.get<int64_t>());
          const std::string role = match[1].str();
          const int64_t role_id = role == "bos"   ? tokenizer.bos_id()
                                  : role == "pad" ? tokenizer.pad_id()
                                  : role == "eos" ? tokenizer.eos_id()
                                  : role == "unk" ? tokenizer.unk_id()
                                                  : tokenizer.mask_id();
          CHECK(role_id == id.get<int64_t>());
        }
      } else if (key == "vocab_size") {
        CHECK(tokenizer.vocab_size() == value.get<int64_t>());
      } else {
        FAIL_CHECK("golden field '" << key << "' is not checked by this test; add its check");
      }
    }
  }
}

TEST_CASE("roberta-base decode(encode(x)) == x for varied Unicode text", "[tokenizers][golden]") {
  if (!fs::exists(roberta_files_dir() / "vocab.json")) {
    WARN("roberta-base round trip skipped: needs " << roberta_files_dir() / "vocab.json"
                                                   << " (set CAPABOOST_DATA_DIR)");
    return;
  }
  for (const std::string text :
       {"Hello, world! It's 2023-06-13.", "  two  spaces\tand\ttabs\n\nand newlines\r\n",
        "na\xC3\xAFve caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E \xED\x95\x9C\xEA\xB5\xAD",
        "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x91\xA7 "
        "\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD",
        "e\xCC\x81\xCC\x81 \xE0\xA4\xA8\xE0\xA4\xAE\xE0\xA4\xB8\xE0\xA5\x8D\xE0\xA4\xA4\xE0\xA5\x87",
        "\xEF\xBB\xBF\xE2\x80\x8B\xC2\xA0\xE3\x80\x80\x1C\x7F"}) {
    INFO("text: " << text);
    CHECK(roberta().decode(roberta().encode_text(text)) == text);
  }
}

// No golden offsets exist offline, so the spans are checked against what they must satisfy on real text:
// every SQuAD v1.1 dev context (2,067 paragraphs, 1,007 answers with non-ASCII characters) tokenized
// with roberta-base, each token's span must hold exactly its bytes with the spaces trimmed, spans must
// tile the text in order, and the ids must be encode_text's.
TEST_CASE("roberta-base token offsets spell each token's text over every SQuAD dev context", "[tokenizers][golden]") {
  const fs::path squad = env_dir("CAPABOOST_DATA_DIR", CAPABOOST_SOURCE_DIR "/../shared/data") / "SQuAD" / "dev-v1.1.json";
  if (!fs::exists(roberta_files_dir() / "vocab.json") || !fs::exists(squad)) {
    WARN("offset check skipped: needs " << roberta_files_dir() / "vocab.json" << " and " << squad
                                        << " (set CAPABOOST_DATA_DIR)");
    return;
  }
  std::ifstream in(squad);
  const auto json = nlohmann::json::parse(in);
  int64_t contexts = 0, tokens = 0, split_characters = 0;
  for (const auto& article : json.at("data")) {
    for (const auto& paragraph : article.at("paragraphs")) {
      const std::string context = paragraph.at("context").get<std::string>();
      // Byte offset of every code point (and of the end), to read spans back as bytes.
      std::vector<size_t> byte_of;
      for (size_t b = 0; b < context.size(); ++b) {
        if ((static_cast<unsigned char>(context[b]) & 0xC0) != 0x80) byte_of.push_back(b);
      }
      byte_of.push_back(context.size());
      const auto spans = roberta().encode_text_with_offsets(context);
      Ids ids;
      int64_t previous_end = 0;
      for (const auto& span : spans) {
        ids.push_back(span.id);
        REQUIRE(span.begin >= 0);
        REQUIRE(span.begin <= span.end);
        REQUIRE(span.end < static_cast<int64_t>(byte_of.size()));
        CHECK(span.begin >= previous_end - 1);  // tokens of one split character share it
        previous_end = span.end;
        std::string text = roberta().decode({span.id});
        const auto first = text.find_first_not_of(' ');
        text = first == std::string::npos ? "" : text.substr(first, text.find_last_not_of(' ') - first + 1);
        const std::string spelled = context.substr(byte_of[span.begin], byte_of[span.end] - byte_of[span.begin]);
        if (text.find("\xEF\xBF\xBD") != std::string::npos) {
          ++split_characters;  // holds part of a character (decodes to U+FFFD): spans the whole character
          CHECK(span.end > span.begin);
        } else if (spelled != text) {
          FAIL_CHECK("context " << contexts << ": token " << span.id << " '" << text << "' spans '" << spelled << "'");
        }
      }
      CHECK(ids == roberta().encode_text(context));
      // The spans reach the last character that is no space (a token of spaces alone has an empty span
      // where its spaces end, so they may reach the very end).
      const auto last = context.find_last_not_of(' ');
      const auto characters = static_cast<int64_t>(byte_of.size()) - 1;
      CHECK(previous_end >= characters - static_cast<int64_t>(context.size() - 1 - last));
      CHECK(previous_end <= characters);
      ++contexts;
      tokens += static_cast<int64_t>(spans.size());
    }
  }
  CHECK(contexts == 2067);
  INFO(tokens << " tokens, " << split_characters << " of them parts of a character");
  CHECK(split_characters > 0);  // the check above ran on non-ASCII contexts too
}
