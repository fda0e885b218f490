#pragma once
// "Did you mean …?" for names typed by hand: spec keys, method names, mask kinds.

#include <string>
#include <vector>

namespace capaboost {

/// The closest candidate to `word` by edit distance (with adjacent transpositions), when close enough
/// to be a likely typo (distance ≤ max(1, |word| / 3)); empty otherwise.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

/// " (did you mean 'x'?)" or "" — ready to append to a message.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace capaboost
