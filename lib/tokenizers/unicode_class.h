#pragma once
// The four Unicode character classes byte-level BPE tokenization needs, over code points:
// \p{L} and \p{N} of the GPT-2 pattern (general categories L* and N*, from tables generated with the
// system Python's unicodedata, Unicode 14.0.0), the `regex` module's \s (the White_Space property)
// and Python's str.isspace() (which Hugging Face uses for add_prefix_space and AddedToken stripping).

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

}  // namespace capaboost
