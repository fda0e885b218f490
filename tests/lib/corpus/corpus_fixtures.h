#pragma once
// Test helpers for the corpus: tiny source directories in the real on-disk formats of the three sources
// (tagged Brown files, SOTU data/*.txt, WordNet data.* files), and the installed sources when present.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "corpus/corpus_builder.h"
#include "support/temp_dir.h"

namespace capaboost::testing {

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

/// A real Brown line (ca01, sentence 1) in the NLTK layout: tab indent, `word/tag` tokens.
inline const char* kBrownLine =
    "\tThe/at Fulton/np-tl County/nn-tl Grand/jj-tl Jury/nn-tl said/vbd Friday/nr an/at investigation/nn of/in "
    "Atlanta's/np$ recent/jj primary/nn election/nn produced/vbd ``/`` no/at evidence/nn ''/'' that/cs any/dti "
    "irregularities/nns took/vbd place/nn ./.";

/// A real WordNet 3.0 data.verb line (synset 00001740, "breathe").
inline const char* kWordNetBreatheLine =
    "00001740 29 v 04 breathe 0 take_a_breath 0 respire 0 suspire 3 021 * 00005041 v 0000 * 00004227 v 0000 + "
    "03110323 a 0301 + 00831191 n 0303 ~ 00017031 v 0000 02 + 02 00 + 08 00 | draw air into, and expel out of, "
    "the lungs; \"I can breathe better when the air is clean\"; \"The patient is respiring\"  ";

/// The three sources in miniature: 2 Brown files (5 sentences), 2 addresses, 4 WordNet files.
class FixtureSources {
 public:
  FixtureSources() {
    const auto brown = dir_.path() / "brown";
    write_text(brown / "ca01", "\n\n" + std::string(kBrownLine) +
                                   "\n\n\n\tThe/at jury/nn said/vbd it/pps did/dod find/vb that/cs many/ap "
                                   "laws/nns ``/`` are/ber outmoded/jj ''/'' ./.\n\n");
    write_text(brown / "cb01", "\n\n\tIt/pps was/bedz (/( perhaps/rb )/) late/jj ./.\n\n\n"
                               "\tHe/pps asked/vbd :/: why/wrb ?/.\n\n\n\tNo/rb one/pn answered/vbd ./.\n\n");
    write_text(brown / "README", "BROWN CORPUS\n");  // not a text file: must be ignored
    write_text(brown / "cats.txt", "ca01 news\ncb01 editorial\n");
    const auto sotu = dir_.path() / "sotu" / "data";
    write_text(sotu / "1790_george_washington_n.txt",
               "Fellow-Citizens of the Senate and House of Representatives: I embrace with great satisfaction the "
               "opportunity. Mr. Jefferson agrees. The U.S. Congress met in 1790.");
    write_text(sotu / "1790_george_washington_n.json", "{\"year\":1790}");  // the txt files are the source
    write_text(sotu / "1791_george_washington_n.txt", "Our progress has been steady. Peace endures!\n");
    const auto wordnet = dir_.path() / "wordnet";
    const std::string licence = "  1 This software and database is being provided to you, the LICENSEE\n";
    write_text(wordnet / "data.noun",
               licence +
                   "00001740 03 n 01 entity 0 003 ~ 00001930 n 0000 | that which is perceived or known or inferred "
                   "to have its own distinct existence (living or nonliving)  \n");
    write_text(wordnet / "data.verb", licence + kWordNetBreatheLine + "\n");
    write_text(wordnet / "data.adj",
               licence + "00001740 00 a 01 able 0 005 = 05200169 n 0000 | (usually followed by `to') having the "
                         "necessary means or skill; \"able to swim\"  \n");
    write_text(wordnet / "data.adv", licence + "00001837 02 r 01 barely 0 000 | only a very short time before  \n");
  }

  CorpusSources sources() const {
    return {(dir_.path() / "brown").string(), (dir_.path() / "sotu").string(), (dir_.path() / "wordnet").string()};
  }
  std::filesystem::path path(const std::string& relative) const { return dir_.path() / relative; }

 private:
  TempDir dir_;
};

/// The sources `make corpus-sources` / `make deps` install, or nothing when any is missing. The npm
/// prefix is $CAPABOOST_CORPUS_NPM, else ~/.cache/capaboost/npm (the Makefile's CORPUS_NPM default).
inline std::optional<CorpusSources> installed_corpus_sources() {
  std::string prefix;
  if (const char* npm = std::getenv("CAPABOOST_CORPUS_NPM")) {
    prefix = npm;
  } else if (const char* home = std::getenv("HOME")) {
    prefix = std::string(home) + "/.cache/capaboost/npm";
  } else {
    return std::nullopt;
  }
  const CorpusSources sources = default_corpus_sources(prefix);
  namespace fs = std::filesystem;
  if (!fs::is_regular_file(fs::path(sources.brown_dir) / "ca01") ||
      !fs::is_directory(fs::path(sources.sotu_dir) / "data") ||
      !fs::is_regular_file(fs::path(sources.wordnet_dir) / "data.noun"))
    return std::nullopt;
  return sources;
}

}  // namespace capaboost::testing
