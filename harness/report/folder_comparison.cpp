#include "report/folder_comparison.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace capaboost::harness {
namespace {

namespace fs = std::filesystem;

// At most this many differing lines are named per file: the first ones say what changed.
constexpr size_t kLinesPerFile = 3;

std::vector<std::string> lines_of(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The fields of one CSV line: commas outside double quotes separate, "" inside quotes is a quote.
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

std::string shortened(const std::string& text) { return text.size() <= 160 ? text : text.substr(0, 157) + "..."; }

// "table.csv line 4 (LoRA, CoLA, measured): mean is 23.0 committed, 22.9 rebuilt".
std::string csv_difference(const std::string& file, size_t number, const std::vector<std::string>& header,
                           const std::string& committed, const std::string& rebuilt) {
  const auto ours = csv_fields(committed), theirs = csv_fields(rebuilt);
  std::vector<std::string> lead(ours.begin(), ours.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(3, ours.size())));
  std::vector<std::string> changed;
  for (size_t i = 0; i < std::max(ours.size(), theirs.size()); ++i) {
    const std::string a = i < ours.size() ? ours[i] : "(none)", b = i < theirs.size() ? theirs[i] : "(none)";
    if (a == b) continue;
    const std::string column = i < header.size() ? header[i] : fmt::format("field {}", i + 1);
    changed.push_back(fmt::format("{} is '{}' committed, '{}' rebuilt", column, shortened(a), shortened(b)));
  }
  return fmt::format("{} line {} ({}): {}", file, number, fmt::join(lead, ", "), fmt::join(changed, "; "));
}

void compare_file(const fs::path& committed, const fs::path& rebuilt, const std::string& name,
                  std::vector<std::string>& differences) {
  const auto ours = lines_of(committed), theirs = lines_of(rebuilt);
  const bool csv = committed.extension() == ".csv";
  const auto header = csv && !theirs.empty() ? csv_fields(theirs.front()) : std::vector<std::string>{};
  size_t named = 0;
  for (size_t i = 0; i < std::max(ours.size(), theirs.size()) && named < kLinesPerFile; ++i) {
    const std::string a = i < ours.size() ? ours[i] : "", b = i < theirs.size() ? theirs[i] : "";
    if (i < ours.size() && i < theirs.size() && a == b) continue;
    ++named;
    if (i >= ours.size() || i >= theirs.size()) {
      differences.push_back(fmt::format("{} line {}: {} only: '{}'", name, i + 1, i >= ours.size() ? "rebuilt" : "committed",
                                        shortened(i >= ours.size() ? b : a)));
    } else if (csv && i > 0) {
      differences.push_back(csv_difference(name, i + 1, header, a, b));
    } else {
      differences.push_back(fmt::format("{} line {}: committed '{}', rebuilt '{}'", name, i + 1, shortened(a), shortened(b)));
    }
  }
}

std::set<std::string> compared_files(const fs::path& root) {
  std::set<std::string> files;
  if (!fs::is_directory(root)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file() && compared_report_file(entry.path())) {
      files.insert(entry.path().lexically_relative(root).string());
    }
  }
  return files;
}

}  // namespace

bool compared_report_file(const fs::path& path) {
  static const std::set<std::string> kExtensions = {".md", ".csv", ".tex", ".dat", ".gp"};
  const std::string name = path.filename().string();
  return kExtensions.count(path.extension().string()) > 0 && name != "README.md";
}

std::vector<std::string> compare_report_folders(const fs::path& committed, const fs::path& rebuilt) {
  std::vector<std::string> differences;
  const auto ours = compared_files(committed), theirs = compared_files(rebuilt);
  for (const auto& name : ours) {
    if (!theirs.count(name)) {
      differences.push_back(fmt::format("{}: the report no longer writes it (rebuilt from the records, it is absent)", name));
    } else {
      compare_file(committed / name, rebuilt / name, name, differences);
    }
  }
  for (const auto& name : theirs) {
    if (!ours.count(name)) differences.push_back(fmt::format("{}: written by the report, missing from the folder", name));
  }
  return differences;
}

}  // namespace capaboost::harness
