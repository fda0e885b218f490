#pragma once
// The Unicode character classes the tokenizers need, over code points. Byte-level BPE: \p{L} and \p{N}
// of the GPT-2 pattern (general categories L* and N*, from tables generated with the system Python's
// unicodedata, Unicode 14.0.0), the `regex` module's \s (the White_Space property) and Python's
// str.isspace() (which Hugging Face uses for add_prefix_space and AddedToken stripping). BERT's WordPiece:
// punctuation, control characters and non-spacing marks as Hugging Face tokenizers 0.21.0 classifies
// them — Unicode 14's categories corrected, code point by code point, to that library's older tables
// (generate_unicode_tables.py lists where they differ; the tokenizer parity test checks every code point).

namespace capaboost {

/// Unicode version of the letter/number tables, e.g. "14.0.0".
const char* unicode_tables_version();

/// General category Lu, Ll, Lt, Lm or Lo (regex \p{L}).
bool is_unicode_letter(char32_t cp);
/// General category Nd, Nl or No (regex \p{N}).
bool is_unicode_number(char32_t cp);
/// The White_Space property: what \s matches in Python's `regex` module, used by the GPT-2 pattern.
bool is_unicode_white_space(char32_t cp);
/// Python's str.isspace(): White_Space plus the separators U+001C..U+001F.
bool is_python_space(char32_t cp);

/// BertPreTokenizer's punctuation: ASCII punctuation (e.g. '$', '+', '^', '`') or general category P*.
bool is_bert_punctuation(char32_t cp);
/// BertNormalizer's control characters (removed by clean_text): general category Cc, Cf or Co except
/// '\t', '\n' and '\r' (which are whitespace to it). Unassigned code points (Cn) are not among them.
bool is_bert_control(char32_t cp);
/// BertNormalizer's accents (removed by strip_accents after NFD): general category Mn.
bool is_bert_nonspacing_mark(char32_t cp);

}  // namespace capaboost
