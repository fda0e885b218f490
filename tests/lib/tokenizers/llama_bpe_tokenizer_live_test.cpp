// LlamaBpeTokenizer and ChatMlTemplate against transformers 4.47.1 (tokenizers 0.21.0) loading the real
// SmolLM2-135M-Instruct GGUF file (AutoTokenizer.from_pretrained(dir, gguf_file=...)), generated live by
// tests/oracle/llama_tokenizer_reference.py in the oracle venv (`make oracle-env`). The tokenizer is
// built from the vocabulary the oracle reads out of the file (tokens, merges, token types, special ids,
// its BOS/EOS framing). On every GLUE dev sentence of the mirror (pairs as pairs, and again truncated),
// every SQuAD v1.1 dev context and question, hostile strings, and a sample of code points across Unicode:
// the same framed ids, the same code point spans for every token of each text, and the same decode
// (special tokens kept and skipped); for both pre-tokenizers (the GGUF converter's GPT-2 pattern, and
// SmolLM2's original one isolating numbers, set on the same tokenizer). And apply_chat_template's
// prompts for a few conversations, as text and as ids. A missing venv or file fails, naming the fix.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "backbones/llama_backbones.h"
#include "data/glue_loader.h"
#include "data/squad_dataset.h"
#include "lib/tokenizers/oracle_rows.h"
#include "support/oracle_python.h"
#include "support/shared_dir.h"
#include "support/temp_dir.h"
#include "tokenizers/chatml_template.h"
#include "tokenizers/llama_bpe_tokenizer.h"
#include "tokenizers/utf8.h"

using namespace capaboost;
namespace fs = std::filesystem;

namespace {

struct LlamaParityItem {
  std::string text;
  std::optional<std::string> pair;
  std::optional<int64_t> max_length;  ///< truncated ("longest_first") to this many ids when set
};

std::string code_point_text(char32_t cp) {
  std::string out;
  append_utf8(out, cp);
  return out;
}

// Texts written to break a byte-level BPE: scripts, emoji sequences, combining marks, control
// characters (SmolLM2 lacks the byte symbols of 0x04, 0x06, 0x13, 0x14, 0x16 and 0x1D), numbers where
// the two pre-tokenizers part, control tokens inside text, whitespace of every kind.
std::vector<std::string> hostile_texts() {
  std::vector<std::string> texts = {
      "",
      " ",
      "   ",
      "\n",
      "\t\t \n\n \r\n\r\n  x  ",
      "a  1 \n\n1. In  2019,\t12 cats and 3\xC2\xA0" "4 dogs",
      "1234567890123456789012345678901234567890 0.000001 -42 1,000,000 3.14159e-10",
      "\xC2\xB2\xC2\xB3\xC2\xBD \xD9\xA3\xD9\xA4 \xE0\xA5\xA9 \xE2\x85\xAB \xE2\x91\xA0 \xEF\xBC\x91\xEF\xBC\x92",
      "\xF0\x9F\x98\x80\xF0\x9F\x98\x83 \xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB \xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD "
      "\xF0\x9F\x87\xAB\xF0\x9F\x87\xB7 \xE2\x9D\xA4\xEF\xB8\x8F",
      "\xE4\xB8\xAD\xE6\x96\x87\xE5\xAD\x97\xE7\xAC\xA6 \xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E\xE3\x81\xAE\xE3\x83\x86"
      "\xE3\x82\xAD\xE3\x82\xB9\xE3\x83\x88 \xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4",
      "e\xCC\x81 a\xCC\x81\xCC\x82\xCC\x83\xCC\x84 Z\xCD\x91\xCD\x97\xCD\x8A\xCD\x9D\xCD\xA0"
      "a\xCC\xB7l\xCC\xB8g\xCC\xB5o",
      "\xD8\xA7\xD9\x84\xD8\xB9\xD8\xB1\xD8\xA8\xD9\x8A\xD8\xA9 \xD7\xA2\xD7\x91\xD7\xA8\xD7\x99\xD7\xAA "
      "\xE0\xA4\xB9\xE0\xA4\xBF\xE0\xA4\x82\xE0\xA4\xA6\xE0\xA5\x80 \xE0\xB8\xA0\xE0\xB8\xB2\xE0\xB8\xA9\xE0\xB8\xB2",
      std::string("nul\0byte", 8),
      "ctl \x01\x02\x03\x04\x05\x06\x07\x08 \x0B\x0C\x0E\x0F\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1A\x1B\x1C\x1D"
      "\x1E\x1F\x7F end",
      "a\x04" "b \x06\x06 \x13\x14x\x16 \x1D",
      "\xC2\x85 \xC2\xA0 \xE1\x9A\x80 \xE2\x80\x80\xE2\x80\x8A \xE2\x80\x8B \xE2\x80\xA8\xE2\x80\xA9 \xE2\x80\xAF "
      "\xE3\x80\x80 \xEF\xBB\xBF x",
      "say <|im_start|>user\nhi<|im_end|> and <|endoftext|><|endoftext|>",
      "<|im_start|><|im_start|x <|im_end|>< |im_end|> <|im_end <filename> <repo_name>x<jupyter_code>",
      "I'm they're we've you'll he'd it's 'S 'T' ''s can't 'll",
      "\xF0\x9D\x94\x98\xF0\x9D\x94\xAB\xF0\x9D\x94\xA6 \xEF\xAC\x81 \xE2\x84\xAA \xC3\x9F\xE1\xBA\x9E "
      "\xC4\xB0i\xCC\x87",
      "http://example.com/path?q=1&r=%20#x user@example.com C++ a->b x==y ... !!! ???",
  };
  std::string long_digits;
  for (int k = 0; k < 200; ++k) long_digits += std::to_string(k % 10);
  texts.push_back(long_digits);
  texts.push_back(std::string(300, ' ') + "x" + std::string(300, '\n'));
  // Every 7th code point up to U+323AF (surrogates aside), 256 to a text, each between a letter and a
  // digit, so every character class boundary of the pre-tokenizers is exercised.
  std::string sweep;
  int in_text = 0;
  for (char32_t cp = 0x20; cp < 0x323B0; cp += 7) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    sweep += "x" + code_point_text(cp) + code_point_text(cp) + "7 ";
    if (++in_text == 256) {
      texts.push_back(sweep);
      sweep.clear();
      in_text = 0;
    }
  }
  texts.push_back(sweep);
  return texts;
}

// The items, and how many of each kind (for the size checks).
struct LlamaParityItems {
  std::vector<LlamaParityItem> items;
  int64_t glue = 0, contexts = 0, questions = 0, hostile = 0, truncated = 0;
};

LlamaParityItems llama_parity_items(const fs::path& data) {
  LlamaParityItems out;
  for (const char* task : {"CoLA", "SST-2", "MRPC", "STS-B", "RTE"}) {
    for (const Example& example : load_glue_file(glue_task(task), DataRoot{data}, GlueFile::kDev).examples) {
      out.items.push_back({example.text_a, example.text_b, std::nullopt});
    }
  }
  out.glue = static_cast<int64_t>(out.items.size());
  const SquadDataset squad = load_squad((data / "SQuAD" / "dev-v1.1.json").string());
  std::string previous;
  for (const SquadQuestion& question : squad.questions) {
    if (question.context == previous) continue;
    previous = question.context;
    out.items.push_back({question.context, std::nullopt, std::nullopt});
    ++out.contexts;
  }
  for (const SquadQuestion& question : squad.questions) {
    out.items.push_back({question.question, std::nullopt, std::nullopt});
  }
  out.questions = static_cast<int64_t>(squad.questions.size());
  for (const std::string& text : hostile_texts()) out.items.push_back({text, std::nullopt, std::nullopt});
  out.hostile = static_cast<int64_t>(hostile_texts().size());
  for (int64_t i = 0; i < out.glue; ++i) {
    const LlamaParityItem row = out.items[static_cast<std::size_t>(i)];
    if (row.pair) out.items.push_back({row.text, row.pair, 24});
  }
  out.truncated = static_cast<int64_t>(out.items.size()) - out.glue - out.contexts - out.questions - out.hostile;
  return out;
}

std::vector<ChatMessage> messages_of(const nlohmann::json& conversation) {
  std::vector<ChatMessage> messages;
  for (const auto& message : conversation["messages"]) {
    messages.push_back({message["role"].get<std::string>(), message["content"].get<std::string>()});
  }
  return messages;
}

nlohmann::json chat_conversations() {
  using json = nlohmann::json;
  const json user = {{"role", "user"}, {"content", "Review: a gripping, funny film.\nIs it positive or negative?"}};
  const json system = {{"role", "system"}, {"content", "Answer with one word."}};
  const json assistant = {{"role", "assistant"}, {"content", "positive"}};
  const json hostile = {{"role", "user"}, {"content", "<|im_end|>\n\xF0\x9F\x98\x80 a  1\n\n2 '\\n'"}};
  json conversations = json::array();
  for (const bool prompt : {true, false}) {
    for (const json& messages : {json::array({user}), json::array({system, user}),
                                 json::array({system, user, assistant, user}),
                                 json::array({user, assistant, system, hostile})}) {
      conversations.push_back({{"messages", messages}, {"add_generation_prompt", prompt}});
    }
  }
  return conversations;
}

LlamaBpeVocabulary vocabulary_of(const nlohmann::json& oracle, LlamaPretokenizer pretokenizer) {
  LlamaBpeVocabulary vocabulary;
  vocabulary.tokens = oracle["tokens"].get<std::vector<std::string>>();
  vocabulary.merges = oracle["merges"].get<std::vector<std::string>>();
  vocabulary.token_types = oracle["token_types"].get<std::vector<int32_t>>();
  const auto id = [&](const char* key) {
    return oracle[key].is_null() ? std::nullopt : std::optional<int64_t>(oracle[key].get<int64_t>());
  };
  vocabulary.bos_id = id("bos_id");
  vocabulary.eos_id = id("eos_id");
  vocabulary.unk_id = id("unk_id");
  vocabulary.pad_id = id("pad_id");
  vocabulary.add_bos = oracle["add_bos"].get<bool>();
  vocabulary.add_eos = oracle["add_eos"].get<bool>();
  vocabulary.pretokenizer = pretokenizer;
  return vocabulary;
}

// Mismatches of one tokenizer against the oracle's rows; the first few with their context.
struct LlamaParity {
  int64_t items = 0, ids = 0, spans = 0, decoded = 0, spans_compared = 0;
  std::vector<std::string> examples;

  void note(const std::string& what) {
    if (examples.size() < 6) examples.push_back(what);
  }
  std::string report(const char* name) const {
    std::ostringstream out;
    out << name << ": " << items << " items; ids differ on " << ids << ", spans on " << spans << " (" << spans_compared
        << " compared), decode on " << decoded;
    for (const auto& example : examples) out << "\n" << example;
    return out.str();
  }
};

LlamaParity compare_llama(const LlamaBpeTokenizer& ours, const std::vector<LlamaParityItem>& items,
                          const nlohmann::json& rows) {
  LlamaParity parity;
  REQUIRE(rows.size() == items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    const LlamaParityItem& item = items[i];
    const nlohmann::json& row = rows[i];
    const std::string shown =
        "item " + std::to_string(i) + "\n  text: " + item.text + (item.pair ? " || " + *item.pair : "");
    ++parity.items;
    const auto options =
        item.max_length ? EncodeOptions().truncation(true).max_length(*item.max_length) : EncodeOptions();
    const std::optional<std::string_view> pair = item.pair ? std::optional<std::string_view>(*item.pair) : std::nullopt;
    const std::vector<int64_t> ids = ours.encode(item.text, pair, options).input_ids;
    const std::vector<int64_t> expected = capaboost::testing::oracle_integers(row["ids"]);
    if (ids != expected) {
      ++parity.ids;
      const std::size_t from = capaboost::testing::first_difference(ids, expected) / 20 * 20;
      parity.note(shown + "\n  ids ours:   " + capaboost::testing::show_ids(ids, from) +
                  "\n  ids oracle: " + capaboost::testing::show_ids(expected, from));
      continue;
    }
    const std::string decoded = ours.decode(ids), decoded_skip = ours.decode(ids, true);
    if (decoded != row["decoded"].get<std::string>() || decoded_skip != row["decoded_skip"].get<std::string>()) {
      ++parity.decoded;
      parity.note(shown + "\n  decode ours:   " + decoded + " | " + decoded_skip + "\n  decode oracle: " +
                  row["decoded"].get<std::string>() + " | " + row["decoded_skip"].get<std::string>());
    }
    for (const auto& span : capaboost::testing::paired_spans(ours, item.text, item.pair, row)) {
      ++parity.spans_compared;
      if (span.same()) continue;
      ++parity.spans;
      parity.note(shown + "\n  token " + std::to_string(span.token) + " (id " + std::to_string(expected[span.token]) +
                  ") oracle [" + std::to_string(span.begin) + ", " + std::to_string(span.end) + ") ours " +
                  capaboost::testing::show_span(span.ours));
      break;
    }
  }
  return parity;
}

}  // namespace

TEST_CASE("LlamaBpeTokenizer and ChatMlTemplate match transformers on SmolLM2's GGUF file",
          "[llama_tokenizer][oracle]") {
  const fs::path gguf = smollm2_gguf_path();  // fails naming `make backbone-smollm2` when it is missing
  const LlamaParityItems parity_items = llama_parity_items(capaboost::testing::shared_dir() / "data");
  // The mirror's sizes (data/README.md): 4,100 GLUE dev rows (2,185 pairs), 2,067 SQuAD v1.1 dev contexts
  // and 10,570 questions.
  CHECK(parity_items.glue == 4100);
  CHECK(parity_items.contexts == 2067);
  CHECK(parity_items.questions == 10570);
  CHECK(parity_items.truncated == 2185);

  capaboost::testing::TempDir dir;
  nlohmann::json request = {
      {"gguf", gguf.string()}, {"items", nlohmann::json::array()}, {"conversations", chat_conversations()}};
  for (const LlamaParityItem& item : parity_items.items) {
    request["items"].push_back({{"text", item.text},
                                {"pair", item.pair ? nlohmann::json(*item.pair) : nlohmann::json()},
                                {"max_length", item.max_length ? nlohmann::json(*item.max_length) : nlohmann::json()}});
  }
  std::ofstream(dir.file("request.json"), std::ios::binary) << request.dump();
  capaboost::testing::run_oracle("llama_tokenizer_reference.py", {dir.file("request.json"), dir.file("response.json")});
  std::ifstream in(dir.file("response.json"), std::ios::binary);
  const nlohmann::json response = nlohmann::json::parse(in);
  INFO("oracle: transformers " << response["versions"]["transformers"].get<std::string>() << ", tokenizers "
                               << response["versions"]["tokenizers"].get<std::string>());
  const nlohmann::json& vocabulary = response["vocabulary"];

  const LlamaBpeTokenizer gguf_tokenizer(vocabulary_of(vocabulary, LlamaPretokenizer::kGpt2));
  CHECK(gguf_tokenizer.vocab_size() == 49152);
  const LlamaBpeTokenizer isolating_tokenizer(vocabulary_of(vocabulary, LlamaPretokenizer::kGpt2IsolatedNumbers));
  struct Variant {
    const char* what;
    const LlamaBpeTokenizer& tokenizer;
    const char* rows;
  };
  for (const Variant& variant :
       {Variant{"(a) transformers-from-GGUF: GPT-2's pre-tokenizer, BOS on every encoding", gguf_tokenizer, "gguf"},
        Variant{"(b) SmolLM2's original pre-tokenizer (numbers isolated) on the same tokenizer", isolating_tokenizer,
                "isolated_numbers"}}) {
    const LlamaParity parity = compare_llama(variant.tokenizer, parity_items.items, response["results"][variant.rows]);
    INFO(variant.what << "\n" << parity.report(variant.rows));
    CHECK(parity.ids == 0);
    CHECK(parity.spans == 0);
    CHECK(parity.decoded == 0);
  }
  {
    INFO("(c) the chat template, as text and as ids (encoded without BOS)");
    const ChatMlTemplate chat(vocabulary["chat_template"].get<std::string>());
    const nlohmann::json conversations = chat_conversations();
    REQUIRE(response["chat"].size() == conversations.size());
    for (std::size_t i = 0; i < conversations.size(); ++i) {
      const std::string prompt =
          chat.render(messages_of(conversations[i]), conversations[i]["add_generation_prompt"].get<bool>());
      const nlohmann::json& expected = response["chat"][i];
      INFO("conversation " << i << ": " << conversations[i].dump());
      CHECK(prompt == expected["text"].get<std::string>());
      CHECK(gguf_tokenizer.encode(prompt, std::nullopt, EncodeOptions().add_special_tokens(false)).input_ids ==
            expected["ids"].get<std::vector<int64_t>>());
    }
  }
}
