// The layers of lib/ (docs/architecture.md): every include of a lib/ file names a folder on its own floor
// or lower. An include that runs up a floor ties a lower layer to one above it (a sites/ file that
// needs models/ can no longer be built, tested or reused without every model), so it fails here, naming
// the file, the line and both floors.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

// The floors of docs/architecture.md; a new folder of lib/ gets its floor here and there.
const std::map<std::string, int>& floors() {
  static const std::map<std::string, int> table = {
      {"util", 1},
      {"params", 2},   {"runtime", 2},    {"tokenizers", 2},
      {"sites", 3},    {"capaboost", 3},  {"data", 3},     {"corpus", 3},
      {"measure", 4},  {"checkpoint", 4}, {"metrics", 4},
      {"models", 5},
      {"train", 6},
      {"peft", 7},     {"tasks", 7},      {"pretrain", 7},
      {"backbones", 8},
  };
  return table;
}

}  // namespace

TEST_CASE("lib/ includes never run up a layer", "[layering]") {
  const fs::path lib = fs::path(CAPABOOST_SOURCE_DIR) / "lib";
  const std::regex include(R"re(^\s*#\s*include\s*"([^"/]+)/[^"]+")re");
  std::vector<std::string> violations;
  int64_t checked = 0;
  for (const auto& entry : fs::recursive_directory_iterator(lib)) {
    const std::string extension = entry.path().extension().string();
    if (!entry.is_regular_file() || (extension != ".h" && extension != ".cpp")) continue;
    const std::string folder = entry.path().lexically_relative(lib).begin()->string();
    const auto own = floors().find(folder);
    INFO(entry.path());
    REQUIRE(own != floors().end());  // a new folder of lib/: give it its floor above and in the doc
    std::ifstream in(entry.path());
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      std::smatch match;
      if (!std::regex_search(line, match, include)) continue;
      ++checked;
      const auto target = floors().find(match[1].str());
      if (target == floors().end()) {
        violations.push_back(entry.path().lexically_relative(lib).string() + ":" + std::to_string(number) + " includes " +
                             match[1].str() + "/, which is not a folder of lib/");
      } else if (target->second > own->second) {
        violations.push_back(entry.path().lexically_relative(lib).string() + ":" + std::to_string(number) + " (floor " +
                             std::to_string(own->second) + ") includes " + match[1].str() + "/ (floor " +
                             std::to_string(target->second) + ")");
      }
    }
  }
  CHECK(checked > 500);  // the scan read the tree, not an empty folder
  std::string report;
  for (const auto& violation : violations) report += violation + "\n";
  INFO("includes that run up a floor (docs/architecture.md):\n" << report);
  CHECK(violations.empty());
}
