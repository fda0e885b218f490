#pragma once
// WordNet 3.0 glosses (Debian wordnet-base: /usr/share/wordnet/data.{noun,verb,adj,adv}, 1.46M gloss
// words). A data-file line is a synset: offset, lexicographer file, type, lemmas, pointers, then
// " | " and the gloss: a definition followed by quoted example sentences, all separated by "; ".

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "corpus/source_text.h"

namespace capaboost {

/// The gloss of one synset, split into its definition and its example sentences.
struct WordNetGloss {
  std::string definition;             ///< without the trailing "; " before the examples
  std::vector<std::string> examples;  ///< the quoted texts, without quotes or attributions ("- Henry James")
};

/// Parses one line of a WordNet data file. Lines of the licence header (they start with two spaces)
/// and lines without a gloss give an empty WordNetGloss. Example:
///   `... | breathe with great difficulty; "She choked with emotion"`
///   -> definition "breathe with great difficulty", examples {"She choked with emotion"}
WordNetGloss parse_wordnet_gloss(std::string_view data_line);

/// Reads data.noun, data.verb, data.adj and data.adv of `dir`: per synset one unit for the definition
/// and one per example; stops after `max_units` units (0 = all). Fails naming the missing file and
/// the fix (`make deps` installs wordnet-base).
SourceText read_wordnet(const std::string& dir, int64_t max_units);

}  // namespace capaboost
