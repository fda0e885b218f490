#pragma once
// Byte-level BPE of the Llama family as a GGUF file describes it (tokenizer.ggml.model = "gpt2":
// SmolLM2, Llama 3, …), built from in-memory data, and matching Hugging Face transformers 4.47.1 loading
// the same file (AutoTokenizer.from_pretrained(dir, gguf_file=…): its GGUF converter makes a
// LlamaTokenizerFast, tokenizers 0.21.0):
//  1. Control tokens (token type 3) written in the text are split out first and map to their ids
//     (leftmost, then longest match; no whitespace stripped around them).
//  2. The text between them is cut by the pre-tokenizer (LlamaPretokenizer), each piece's bytes become
//     byte-level symbols and merges apply by rank (byte_level_bpe_model.h, shared with RoBERTa's). A
//     byte without a symbol in the vocabulary becomes the unknown token (consecutive ones in a piece one).
//  3. Framing: [BOS] A [EOS], and for a pair [BOS] A [EOS] [BOS] B [EOS], each marker where its flag is
//     on (LlamaTokenizerFast's template); no token types.
//  4. Decode: the tokens' bytes read as UTF-8 (ill-formed bytes become U+FFFD), control tokens as their
//     text unless skipped; no clean-up of tokenization spaces.
// Offsets are HF's offset_mapping: code point spans, the spaces a token carries included (transformers
// gives this tokenizer no ByteLevel post-processor, so nothing trims them), a token cutting a multi-byte
// character spanning all of it.
//
// Where transformers-from-GGUF departs from the file or from SmolLM2's original Hugging Face tokenizer
// (tokenizer.json of HuggingFaceTB/SmolLM2-135M-Instruct), and what to set here to follow it:
//  - pre-tokenizer: it ignores tokenizer.ggml.pre and applies GPT-2's pattern (LlamaPretokenizer::kGpt2);
//    the original tokenizer (and llama.cpp's `smollm`) isolates every digit first (kGpt2IsolatedNumbers).
//    They differ where whitespace runs or a space meet numbers: "a  1" is a, Ġ, Ġ, 1 here and a, ĠĠ, 1
//    there; "\n\n1" is Ċ, Ċ, 1 here and ĊĊ, 1 there (on the GLUE dev rows and SQuAD v1.1 dev texts,
//    2 of 16,737 part: "What is  565 °C …", and " ⅓" in a context).
//  - BOS: it adds BOS to every encoding (LlamaTokenizerFast's add_bos_token = True) although the file says
//    tokenizer.ggml.add_bos_token = false and the original tokenizer adds nothing: add_bos = true.
//  - EOS: its eos_token is the BOS token (<|im_start|>: the converter reads bos_token_id for both); the
//    file's EOS, id 2 <|im_end|>, is what the model ends turns with: eos_id() here is the file's.
//  - padding: it sets no pad token although the file names one (id 2); pad_id() here is the file's.
//  - decode: its default cleans up tokenization spaces (" ." -> "."); decode() here never does
//    (transformers' decode(ids, clean_up_tokenization_spaces=False)).
//  - ids outside the vocabulary are dropped by its decode; here they are an error.
//
//   LlamaBpeVocabulary vocabulary;       // from tokenizer.ggml.*
//   vocabulary.tokens = …; vocabulary.merges = …; vocabulary.token_types = …;
//   vocabulary.bos_id = 1; vocabulary.eos_id = 2; vocabulary.unk_id = 0; vocabulary.pad_id = 2;
//   LlamaBpeTokenizer tokenizer(std::move(vocabulary));
//   Encoding e = tokenizer.encode("Hello world");                 // {1, 19556, 905}
//   std::string text = tokenizer.decode(e.input_ids, /*skip_special_tokens=*/true);

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizers/byte_level_bpe_model.h"
#include "tokenizers/special_token_splitter.h"
#include "tokenizers/tokenizer.h"

namespace capaboost {

/// How text between control tokens is cut into the pieces BPE runs on.
enum class LlamaPretokenizer {
  /// GPT-2's pattern (gpt2_pretokenizer.h): what transformers' GGUF converter applies to every
  /// byte-level Llama-family file, whatever its tokenizer.ggml.pre says.
  kGpt2,
  /// Every number character its own piece, then GPT-2's pattern: SmolLM2's original tokenizer.json
  /// (Digits(individual_digits=True), ByteLevel), as llama.cpp's `smollm` pre-tokenizer intends.
  kGpt2IsolatedNumbers,
};

/// GGUF token types (llama.cpp's llama_token_type), tokenizer.ggml.token_type.
enum class GgufTokenType : int32_t {
  kUndefined = 0,
  kNormal = 1,
  kUnknown = 2,
  kControl = 3,  ///< special: matched in text, skipped by decode(skip_special_tokens)
  kUserDefined = 4,
  kUnused = 5,
  kByte = 6,
};

/// A byte-level BPE vocabulary as a GGUF file's tokenizer.ggml.* metadata holds it.
struct LlamaBpeVocabulary {
  std::vector<std::string> tokens;   ///< tokenizer.ggml.tokens: byte-level token strings, by id
  std::vector<std::string> merges;   ///< tokenizer.ggml.merges: "left right", best first
  std::vector<int32_t> token_types;  ///< tokenizer.ggml.token_type, one per token (GgufTokenType values)
  std::optional<int64_t> bos_id;     ///< tokenizer.ggml.bos_token_id
  std::optional<int64_t> eos_id;     ///< tokenizer.ggml.eos_token_id
  std::optional<int64_t> unk_id;     ///< tokenizer.ggml.unknown_token_id (stands for bytes without a symbol)
  std::optional<int64_t> pad_id;     ///< tokenizer.ggml.padding_token_id
  bool add_bos = true;   ///< transformers-from-GGUF: true whatever tokenizer.ggml.add_bos_token says
  bool add_eos = false;  ///< LlamaTokenizerFast's default; the GGUF key is tokenizer.ggml.add_eos_token
  LlamaPretokenizer pretokenizer = LlamaPretokenizer::kGpt2;  ///< kGpt2: transformers-from-GGUF
};

/// Thread-safe for concurrent encodes; not copyable (its BPE model owns a cache).
class LlamaBpeTokenizer : public Tokenizer {
 public:
  /// TORCH_CHECK-fails, naming the field, on inconsistent data: token types not one per token or not a
  /// GGUF type, a merge not "left right" or naming something the vocabulary lacks, an id outside the
  /// vocabulary, a byte without a symbol and no unknown token, BOS or EOS framing without its id.
  explicit LlamaBpeTokenizer(LlamaBpeVocabulary vocabulary);

  std::vector<int64_t> encode_text(std::string_view text) const override;
  std::vector<TokenOffsets> encode_text_with_offsets(std::string_view text) const override;
  std::vector<int64_t> add_special_tokens(const std::vector<int64_t>& a,
                                          const std::optional<std::vector<int64_t>>& b) const override;
  int64_t num_special_tokens(bool pair) const override;
  std::string decode(const std::vector<int64_t>& ids, bool skip_special_tokens = false) const override;
  /// The vocabulary's padding id; TORCH_CHECK-fails when it names none.
  int64_t pad_id() const override;
  /// A causal language model has no mask token: always TORCH_CHECK-fails.
  int64_t mask_id() const override;
  /// The control tokens and the BOS, EOS, unknown and padding ids.
  std::vector<int64_t> special_ids() const override;
  int64_t vocab_size() const override { return bpe_.size(); }

  /// Byte-level token strings of `text` (HF tokenize), e.g. "Hello world" -> {"Hello", "Ġworld"}.
  std::vector<std::string> tokenize(std::string_view text) const;
  std::optional<int64_t> bos_id() const { return bos_id_; }
  std::optional<int64_t> eos_id() const { return eos_id_; }
  /// Token string of `id`; TORCH_CHECK-fails outside [0, vocab_size()).
  const std::string& id_to_token(int64_t id) const { return bpe_.token(id); }
  /// Id of a token, or nullopt when the vocabulary has none.
  std::optional<int64_t> token_to_id(const std::string& token) const { return bpe_.find(token); }

 private:
  // One token of an encoding and the bytes [begin, end) of the text it stands for.
  struct Piece {
    int64_t id;
    std::size_t begin;
    std::size_t end;
  };
  std::vector<Piece> encode_pieces(std::string_view text) const;

  ByteLevelBpeModel bpe_;
  SpecialTokenSplitter controls_;
  std::optional<int64_t> bos_id_, eos_id_, unk_id_, pad_id_;
  bool add_bos_, add_eos_;
  LlamaPretokenizer pretokenizer_;
};

}  // namespace capaboost
