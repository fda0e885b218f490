#pragma once
// The answer-level metrics of the official SQuAD evaluation scripts (evaluate-v1.1.py and
// evaluate-v2.0.py): answer normalisation, exact match and token F1, with each script's quirks.

#include <string>
#include <vector>

namespace capaboost {

/// The scripts' normalize_answer: Python's str.lower(), then every ASCII punctuation character
/// (string.punctuation) removed, then the words "a", "an" and "the" replaced by a space (the regex
/// \b(a|an|the)\b, whose word characters are Unicode letters, numbers and "_"), then whitespace
/// (str.split()'s: Unicode spaces) collapsed to single spaces with none at the ends. `text` is UTF-8.
std::string normalize_squad_answer(const std::string& text);

/// The normalised answer split at spaces (v2.0's get_tokens; v1.1 splits the same way).
std::vector<std::string> squad_tokens(const std::string& text);

/// Whether the normalised texts are equal.
bool squad_exact_match(const std::string& prediction, const std::string& gold);

/// Token F1 (multiset overlap) as evaluate-v1.1.py computes it: 0 when nothing is shared, which
/// includes an empty prediction against an empty gold answer.
double squad_f1_v1(const std::string& prediction, const std::string& gold);

/// Token F1 as evaluate-v2.0.py computes it: when either side normalises to nothing, 1 if both do
/// (a correct no-answer), else 0.
double squad_f1_v2(const std::string& prediction, const std::string& gold);

}  // namespace capaboost
