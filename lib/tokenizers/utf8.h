#pragma once
// UTF-8 helpers for the tokenizers: strict validation of input text, fast decoding of text already
// validated, encoding, and Python's lossy bytes.decode("utf-8", errors="replace") for decode().

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace capaboost {

/// A code point and the number of bytes it occupies in UTF-8.
struct Utf8CodePoint {
  char32_t cp;
  std::size_t length;
};

/// The byte offset of the first ill-formed sequence of `text` (an overlong, a surrogate, a code point
/// above U+10FFFF, a stray or missing continuation byte), or nullopt when it is well-formed UTF-8.
std::optional<std::size_t> first_ill_formed_utf8(std::string_view text);

/// TORCH_CHECK-fails unless `text` is well-formed UTF-8 (no overlongs, surrogates or code points
/// above U+10FFFF); the message names `what` (e.g. "tokenizer input") and the offending byte offset.
void check_utf8(std::string_view text, const char* what);

/// Decodes the code point starting at byte `pos` of text that passed check_utf8.
Utf8CodePoint decode_utf8_at(std::string_view text, std::size_t pos);

/// Decodes the last code point of non-empty text that passed check_utf8.
Utf8CodePoint decode_last_utf8(std::string_view text);

/// Number of code points of well-formed UTF-8 `text` (what Python's len() gives).
int64_t code_point_count(std::string_view text);

/// For every byte offset 0 … size of well-formed UTF-8 `text`, the number of code points that start
/// before it: byte offsets of character boundaries become Python string indices.
std::vector<int64_t> code_points_before(std::string_view text);

/// Appends the UTF-8 encoding of `cp` (a Unicode scalar value).
void append_utf8(std::string& out, char32_t cp);

/// Bytes to valid UTF-8 exactly as Python's bytes.decode("utf-8", errors="replace"): each maximal
/// ill-formed subpart (Unicode §3.9 "substitution of maximal subparts") becomes one U+FFFD.
std::string utf8_with_replacement(std::string_view bytes);

}  // namespace capaboost
