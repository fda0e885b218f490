// Curated outputs cannot go stale silently: every folder under results/<profile>/<spec>/ that `make
// curate-…` wrote keeps run_keys.txt, the keys of the runs it was rendered from. Re-planned with the
// current code (defaults, recipes, code version), the spec must give the same keys; otherwise the
// folder predates the code and the test names the command that renders it again. A folder rendered
// before keys were kept says so in its README ("As of an earlier commit").

#include <catch2/catch.hpp>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "support/read_text.h"
#include "support/temp_dir.h"
#include "support/shared_dir.h"

namespace fs = std::filesystem;
using capaboost::testing::read_text;

using capaboost::testing::shared_dir;

namespace {

// The 12-hex run keys of a `capaboost plan` listing or a run_keys.txt (one per line, first field).
std::set<std::string> keys_of(const std::string& text) {
  std::set<std::string> keys;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const std::string key = line.substr(0, line.find(' '));
    if (key.size() == 12 && key.find_first_not_of("0123456789abcdef") == std::string::npos) keys.insert(key);
  }
  return keys;
}

// The command the folder's README says renders it ("by `make …`."), for the failure message.
std::string curate_command(const std::string& readme) {
  const auto start = readme.find("by\n`");
  if (start == std::string::npos) return "the make curate-… target of its spec";
  const auto end = readme.find('`', start + 4);
  return readme.substr(start + 4, end - start - 4);
}

}  // namespace

TEST_CASE("every curated folder was rendered from the runs the current code plans", "[harness][process][curated]") {
  capaboost::testing::TempDir dir;
  int checked = 0, earlier = 0;
  const fs::path results = fs::path(CAPABOOST_SOURCE_DIR) / "results";
  for (const auto& profile : fs::directory_iterator(results)) {
    // results/<profile>/ is committed; results/reports/ and the records beside it are not.
    const std::set<std::string> profiles = {"paper", "cpu", "mini", "smoke"};
    if (!profile.is_directory() || !profiles.count(profile.path().filename().string())) continue;
    for (const auto& folder : fs::directory_iterator(profile.path())) {
      const fs::path spec = fs::path(CAPABOOST_SOURCE_DIR) / "experiments" / (folder.path().filename().string() + ".yaml");
      if (!folder.is_directory() || !fs::exists(spec)) continue;  // not a spec's report (a picture of a backbone)
      const std::string name = profile.path().filename().string() + "/" + folder.path().filename().string();
      INFO(name);
      const std::string readme = read_text(folder.path() / "README.md");
      if (!fs::exists(folder.path() / "run_keys.txt")) {
        INFO("results/" << name << " keeps no run_keys.txt: render it again with `" << curate_command(readme)
                        << "`, or say in its README that it is as of an earlier commit");
        CHECK(readme.find("**As of an earlier commit**") != std::string::npos);
        ++earlier;
        continue;
      }
      const fs::path listing = dir.path() / "plan.txt";
      const std::string command = "'" + std::string(CAPABOOST_BINARY) + "' plan '" + spec.string() + "' --profile " +
                                  profile.path().filename().string() + " --results '" + (dir.path() / "results").string() +
                                  "' --data-root '" + (shared_dir() / "data").string() + "' > '" + listing.string() + "' 2>&1";
      const int status = std::system(command.c_str());
      INFO(read_text(listing));
      REQUIRE(WIFEXITED(status));
      REQUIRE(WEXITSTATUS(status) == 0);
      const auto planned = keys_of(read_text(listing));
      const auto curated = keys_of(read_text(folder.path() / "run_keys.txt"));
      INFO("results/" << name << " was rendered from other runs than the current code plans (a default, a recipe or "
                      "the code version changed): render it again with `" << curate_command(readme) << "`");
      CHECK(planned == curated);
      CHECK_FALSE(planned.empty());
      ++checked;
    }
  }
  CHECK(checked >= 1);
  WARN(checked << " curated folders checked against the current plan; " << earlier << " marked as of an earlier commit");
}
