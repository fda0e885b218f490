#include "data/squad_splits.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "data/permutation.h"
#include "util/sha256.h"

namespace capaboost {
namespace {

namespace fs = std::filesystem;

// Bumped whenever the procedure changes, so old fingerprints no longer match.
constexpr const char* kSquadSplitVersion = "squad-splits-v1";

struct LoadedFile {
  SquadDataset dataset;
  std::string sha256;
};

LoadedFile load(const DataRoot& root, const std::string& name) {
  const fs::path path = root.path / "SQuAD" / name;
  std::ifstream in(path, std::ios::binary);
  TORCH_CHECK(in.good(), "cannot open the SQuAD file ", path.string());
  std::stringstream bytes;
  bytes << in.rdbuf();
  const std::string text = bytes.str();
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for a number like 1e400
    TORCH_CHECK(false, path.string(), ": not valid JSON (", e.what(), "); a truncated download? fetch it again");
  }
  return {parse_squad(json, path.string()), sha256_hex(text)};
}

SquadDataset with_questions(const SquadDataset& from, std::vector<SquadQuestion> questions) {
  SquadDataset dataset;
  dataset.source = from.source;
  dataset.version = from.version;
  dataset.major_version = from.major_version;
  dataset.questions = std::move(questions);
  return dataset;
}

}  // namespace

const std::vector<std::string> squad_protocol_names = {"official", "article-split"};

std::string to_string(SquadProtocol protocol) {
  return protocol == SquadProtocol::kOfficial ? "official" : "article-split";
}

SquadProtocol parse_squad_protocol(const std::string& name) {
  if (name == "official") return SquadProtocol::kOfficial;
  if (name == "article-split") return SquadProtocol::kArticleSplit;
  TORCH_CHECK(false, "unknown SQuAD protocol '", name, "'; choose official or article-split");
}

std::vector<std::string> squad_files(const SquadSplitOptions& options) {
  if (options.protocol() == SquadProtocol::kArticleSplit) return {options.split_file()};
  const std::string version = options.version() == 2 ? "v2.0" : "v1.1";
  return {"train-" + version + ".json", "dev-" + version + ".json"};
}

void require_squad_files(const DataRoot& root, const SquadSplitOptions& options) {
  std::vector<std::string> missing;
  for (const auto& name : squad_files(options)) {
    if (!fs::exists(root.path / "SQuAD" / name)) missing.push_back((root.path / "SQuAD" / name).string());
  }
  if (missing.empty()) return;
  throw MissingDataError(fmt::format(
      "SQuAD ({} protocol) is not available: {} missing (data root {}, from {}). Download the official files on a "
      "machine with internet access (from the repository root):\n  harness/scripts/fetch_squad.sh {}\nor, offline, "
      "use protocol article-split on the mirror's dev-v1.1.json.",
      to_string(options.protocol()), fmt::join(missing, ", "), root.path.string(), root.origin, root.path.string()));
}

SquadSplits make_squad_splits(const DataRoot& root, const SquadSplitOptions& options) {
  require_squad_files(root, options);
  SquadSplits splits;
  if (options.protocol() == SquadProtocol::kOfficial) {
    const auto names = squad_files(options);
    auto train = load(root, names[0]);
    auto dev = load(root, names[1]);
    splits.files = {{"SQuAD/" + names[0], train.sha256}, {"SQuAD/" + names[1], dev.sha256}};
    splits.train = std::move(train.dataset);
    splits.eval = dev.dataset;
    splits.test = std::move(dev.dataset);
    splits.eval_is_test = true;
    splits.description = fmt::format("official: train = {} ({} questions); eval = test = {} ({})", names[0],
                                     splits.train.questions.size(), names[1], splits.test.questions.size());
  } else {
    auto file = load(root, options.split_file());
    splits.files = {{"SQuAD/" + options.split_file(), file.sha256}};
    const SquadDataset& all = file.dataset;
    // Articles in order of first appearance; a file without titles groups by context.
    std::map<std::string, int64_t> article_of_key;
    std::vector<int64_t> article_of_question;
    for (const auto& question : all.questions) {
      const std::string& key = question.title.empty() ? question.context : question.title;
      const auto [it, added] = article_of_key.emplace(key, static_cast<int64_t>(article_of_key.size()));
      article_of_question.push_back(it->second);
    }
    const auto articles = static_cast<int64_t>(article_of_key.size());
    TORCH_CHECK(articles >= 3, all.source, " has ", articles,
                " article(s); the article-split protocol needs at least 3 (test, eval, train)");
    const auto order = seeded_permutation(articles, options.seed());
    const int64_t n_test = articles / 2;
    const int64_t n_eval = std::max<int64_t>(1, articles / 10);
    std::vector<int> split_of_article(static_cast<size_t>(articles));  // 0 train, 1 eval, 2 test
    for (int64_t i = 0; i < articles; ++i) split_of_article[order[i]] = i < n_test ? 2 : i < n_test + n_eval ? 1 : 0;
    std::vector<SquadQuestion> parts[3];
    for (size_t q = 0; q < all.questions.size(); ++q) {
      parts[split_of_article[article_of_question[q]]].push_back(all.questions[q]);
    }
    splits.train = with_questions(all, std::move(parts[0]));
    splits.eval = with_questions(all, std::move(parts[1]));
    splits.test = with_questions(all, std::move(parts[2]));
    splits.description = fmt::format(
        "article-split of {} ({} articles permuted with seed {}): test = {} articles ({} questions), eval = {} ({}), "
        "train = {} ({}); no article in two splits",
        options.split_file(), articles, options.seed(), n_test, splits.test.questions.size(), n_eval,
        splits.eval.questions.size(), articles - n_test - n_eval, splits.train.questions.size());
  }
  const int64_t limit = options.train_limit();
  if (limit > 0 && static_cast<size_t>(limit) < splits.train.questions.size()) {
    // Whole paragraphs are not kept together: a uniform sample of questions, as GLUE's limits draw.
    const auto order = seeded_permutation(static_cast<int64_t>(splits.train.questions.size()), options.seed());
    std::vector<SquadQuestion> kept;
    for (int64_t i = 0; i < limit; ++i) kept.push_back(splits.train.questions[static_cast<size_t>(order[i])]);
    splits.train.questions = std::move(kept);
    splits.description += fmt::format("; train limited to {} questions drawn uniformly with seed {}", limit, options.seed());
  }
  std::string canonical = fmt::format("{}\nprotocol={}\nversion={}\nsplit_file={}\nseed={}\ntrain_limit={}\n",
                                      kSquadSplitVersion, to_string(options.protocol()), options.version(),
                                      options.split_file(), options.seed(), limit);
  for (const auto& [name, digest] : splits.files) canonical += fmt::format("file {} sha256={}\n", name, digest);
  splits.fingerprint = sha256_hex(canonical);
  return splits;
}

nlohmann::json provenance_json(const SquadSplits& splits) {
  nlohmann::json files = nlohmann::json::object();
  for (const auto& [name, digest] : splits.files) files[name] = digest;
  return {{"train", splits.train.questions.size()},
          {"eval", splits.eval.questions.size()},
          {"test", splits.test.questions.size()},
          {"eval_is_test", splits.eval_is_test},
          {"files", files},
          {"fingerprint", splits.fingerprint},
          {"description", splits.description}};
}

}  // namespace capaboost
