#pragma once
// GPT-2's reversible byte <-> unicode map (bytes_to_unicode in openai/gpt-2 encoder.py): every byte
// becomes a printable code point so BPE symbols never hold whitespace or control characters. The
// printable bytes ! .. ~, ¡ .. ¬ and ® .. ÿ map to themselves; the other 68 map to U+0100.. in byte order
// (space 0x20 -> 'Ġ' U+0120, newline 0x0A -> 'Ċ' U+010A).

#include <cstdint>
#include <optional>
#include <string>

namespace capaboost {

/// The code point that stands for `byte` in byte-level BPE symbols.
char32_t byte_to_unicode(uint8_t byte);

/// The byte `cp` stands for, or nullopt when `cp` is not one of the 256 byte code points.
std::optional<uint8_t> unicode_to_byte(char32_t cp);

/// The byte-level symbol of one byte as UTF-8, e.g. 0x20 -> "Ġ".
std::string byte_symbol(uint8_t byte);

}  // namespace capaboost
