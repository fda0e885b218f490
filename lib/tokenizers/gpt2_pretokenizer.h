#pragma once
// GPT-2 pre-tokenization: splits text into the pieces BPE runs on, exactly as
//   regex.findall(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""", text)
// with Python's `regex` module (used by Hugging Face's GPT2Tokenizer/RobertaTokenizer), implemented by
// hand over code points because std::regex has no \p{L}/\p{N}. The pieces tile the text exactly.
// A variant first isolates every number character, as Hugging Face's Sequence[Digits(individual_digits=
// True), ByteLevel] (StarCoder2's and SmolLM2's tokenizer.json; llama.cpp's `smollm` pre-tokenizer).

#include <string_view>
#include <vector>

namespace capaboost {

/// Appends the pieces of `text` (well-formed UTF-8, see check_utf8) to `pieces`, as views into `text`.
void gpt2_pretokenize(std::string_view text, std::vector<std::string_view>& pieces);

/// As gpt2_pretokenize after cutting `text` around every \p{N} code point, each one a piece of its own:
/// "in  2019" -> "in", "  ", "2", "0", "1", "9" (gpt2_pretokenize alone: "in", " ", " 2019").
void gpt2_pretokenize_isolating_numbers(std::string_view text, std::vector<std::string_view>& pieces);

}  // namespace capaboost
