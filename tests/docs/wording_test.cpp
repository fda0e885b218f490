// "No signal" is not equivalence: nothing a reader meets outside a claims table — the README, the docs,
// a profile's caption — may say that a method keeps or matches a score, performs like another or does
// just as well, unless the sentence cites an "equivalent" verdict (docs/harness-and-specs.md,
// "Verdicts: the rules"). Quoted text (a claim's own words, a spec key) and the rows of a claims table,
// which carry their verdict beside the claim, are not statements of the suite.

#include <catch2/catch.hpp>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

// A keep/match verb within a few words of what a score claim is about.
const std::regex& score_claim() {
  static const std::regex pattern(
      R"(\b(keeps?|kept|keeping|match(es|ed|ing)?|performs? (alike|like|similarly)|just as well|on par with)\b[^.|;:]{0,50}?\b(scores?|accuracy|MCC|F1|LoRA|PAdapter|AdaLoRA|fp32|base method|fine-tuning|performance|points)\b)",
      std::regex::icase);
  return pattern;
}

// The sentences of `text` that make a score claim without an "equivalent" verdict behind it.
std::vector<std::string> unbacked_claims(const std::string& text) {
  static const std::regex quoted(R"("[^"]*"|“[^”]*”|`[^`]*`)");
  static const std::regex verdict_row(
      R"(\|\s*(reproduced|not reproduced|no signal|equivalent|not equivalent|not testable|crosses builds|not measured)[^|]*\|\s*$)");
  static const std::regex sentence_end(R"((?:[.;|])\s)");
  std::vector<std::string> found;
  if (std::regex_search(text, verdict_row)) return found;  // a claims table's row: the verdict is beside it
  std::sregex_token_iterator it(text.begin(), text.end(), sentence_end, -1), end;
  for (; it != end; ++it) {
    const std::string sentence = *it;
    // The claim is looked for outside quotes; the verdict that backs it may be quoted.
    const std::string plain = std::regex_replace(sentence, quoted, "\"\"");
    if (std::regex_search(plain, score_claim()) && sentence.find("equivalent") == std::string::npos) {
      found.push_back(sentence);
    }
  }
  return found;
}

}  // namespace

TEST_CASE("the wording check finds an unbacked 'keeps' and passes quoted, tabled and equivalent ones", "[docs]") {
  CHECK(unbacked_claims("CapaBoost-LoRA keeps LoRA's score at fewer parameters.").size() == 1);
  CHECK(unbacked_claims("bf16 LoRA matches fp32 within a point").size() == 1);
  CHECK(unbacked_claims("The claim \"CapaBoost-LoRA matches LoRA r=16\" shows no signal.").empty());
  CHECK(unbacked_claims("| bf16 LoRA matches fp32 | no signal |").empty());
  CHECK(unbacked_claims("bf16 LoRA matches fp32: equivalent within ±1.0 (precision_check).").empty());
  CHECK(unbacked_claims("The fused kernel keeps its inputs in cache.").empty());
}

TEST_CASE("README, docs and captions say no method keeps or matches a score without an equivalent verdict", "[docs]") {
  const fs::path root(CAPABOOST_SOURCE_DIR);
  std::vector<fs::path> files{root / "README.md"};
  for (const auto& entry : fs::recursive_directory_iterator(root / "docs")) {
    if (entry.is_regular_file() && entry.path().extension() == ".md") files.push_back(entry.path());
  }
  std::vector<std::string> violations;
  for (const auto& file : files) {
    std::ifstream in(file);
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      for (const auto& sentence : unbacked_claims(line)) {
        violations.push_back(fs::relative(file, root).string() + ":" + std::to_string(number) + ": " + sentence);
      }
    }
  }
  for (const auto& entry : fs::directory_iterator(root / "experiments")) {
    if (entry.path().extension() != ".yaml") continue;
    const YAML::Node spec = YAML::LoadFile(entry.path().string());
    if (!spec["profiles"] || !spec["profiles"].IsMap()) continue;
    for (const auto& profile : spec["profiles"]) {
      if (!profile.second.IsMap() || !profile.second["caption"]) continue;
      for (const auto& sentence : unbacked_claims(profile.second["caption"].as<std::string>())) {
        violations.push_back(fs::relative(entry.path(), root).string() + " caption of " + profile.first.as<std::string>() +
                             ": " + sentence);
      }
    }
  }
  std::string listed = "say what the claim's verdict is (\"no signal\", \"equivalent within ±m\"), or quote the claim:";
  for (const auto& violation : violations) listed += "\n  " + violation;
  INFO(listed);
  CHECK(violations.empty());
}
