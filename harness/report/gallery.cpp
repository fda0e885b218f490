#include "report/gallery.h"

#include "spec/spec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace capaboost::harness {
namespace {

namespace fs = std::filesystem;

// More figures than this in one folder and the rest fold away: a split report's dozen parts would
// otherwise be most of the page, and the first ones already show what the parts look like.
constexpr size_t kOpenFigures = 4;
// Up to this many parts are named one by one (links, verdicts); more are counted.
constexpr size_t kNamedParts = 6;
// The height a picture taller than wide is shown at.
constexpr int kTallHeight = 480;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string trim(const std::string& text) {
  const auto begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  const auto end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

// A Markdown table line's cells, trimmed. "\|" is a '|' inside a cell, not a border.
std::vector<std::string> cells_of(const std::string& line) {
  std::string row = trim(line);
  if (!row.empty() && row.front() == '|') row.erase(0, 1);
  if (!row.empty() && row.back() == '|' && (row.size() < 2 || row[row.size() - 2] != '\\')) row.pop_back();
  std::vector<std::string> cells;
  std::string cell;
  for (size_t i = 0; i < row.size(); ++i) {
    if (row[i] == '\\' && i + 1 < row.size() && row[i + 1] == '|') {
      cell += "\\|";
      ++i;
    } else if (row[i] == '|') {
      cells.push_back(trim(cell));
      cell.clear();
    } else {
      cell += row[i];
    }
  }
  cells.push_back(trim(cell));
  return cells;
}

bool is_separator(const std::vector<std::string>& cells) {
  for (const auto& cell : cells) {
    if (cell.empty() || cell.find_first_not_of("-:") != std::string::npos) return false;
  }
  return true;
}

// One Markdown table of a report: the "## " heading it sits under ("" before the first) and its rows,
// the header first, without the separator line.
struct MarkdownTable {
  std::string heading;
  std::vector<std::vector<std::string>> rows;
};

std::vector<MarkdownTable> tables_of(const std::string& markdown) {
  std::vector<MarkdownTable> tables;
  std::string heading;
  bool in_table = false;
  std::istringstream lines(markdown);
  for (std::string line; std::getline(lines, line);) {
    const std::string text = trim(line);
    if (text.rfind("## ", 0) == 0) heading = trim(text.substr(3));
    if (text.empty() || text.front() != '|') {
      in_table = false;
      continue;
    }
    if (!in_table) tables.push_back({heading, {}});
    in_table = true;
    auto cells = cells_of(text);
    if (!is_separator(cells)) tables.back().rows.push_back(std::move(cells));
  }
  return tables;
}

// A cell's number without its spread: "63.7 ± 0.6" → "63.7"; the "†" of missing runs stays, so a
// partial mean is not read as a whole one. Empty when the cell holds no number.
std::string mean_of(const std::string& cell) {
  static const std::set<std::string> kNone = {"", "–", "-", "--", "n/a", "failed"};
  if (kNone.count(cell)) return "";
  std::string mean = trim(cell.substr(0, cell.find(" ± ")));
  if (cell.find("†") != std::string::npos && mean.find("†") == std::string::npos) mean += " †";
  return mean;
}

// The spec's opening comment up to its first ": " names the artifact ("# Paper Table 2 (tab:x): …").
std::string artifact_name(const fs::path& spec_file) {
  std::ifstream in(spec_file);
  std::string line;
  std::getline(in, line);
  if (line.rfind('#', 0) != 0) return "";
  std::string name = trim(line.substr(1));
  name = name.substr(0, name.find(": "));
  if (!name.empty() && name.back() == ':') name.pop_back();  // the line ends where the sentence goes on
  if (name.rfind("Paper ", 0) == 0) name = name.substr(6);
  if (!name.empty()) name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
  return trim(name);
}

PaperArtifact paper_listing(const fs::path& experiments, const std::string& spec) {
  const fs::path settings = experiments / "paper" / "settings.yaml";
  if (!fs::exists(settings)) return PaperArtifact::kUnlisted;
  YAML::Node root;
  try {
    root = YAML::LoadFile(settings.string());
  } catch (const YAML::Exception& e) {
    // Not a folder's fault, and every folder would be misfiled: stop and name the file.
    throw std::runtime_error(fmt::format("{}:{}: {} (the gallery reads which specs are the paper's from it)",
                                         settings.string(), e.mark.line + 1, e.msg));
  }
  if (root["specs"].IsMap() && root["specs"][spec]) return PaperArtifact::kYes;
  if (root["not_paper"].IsSequence()) {
    for (const auto& name : root["not_paper"]) {
      if (name.IsScalar() && name.as<std::string>() == spec) return PaperArtifact::kNo;
    }
  }
  return PaperArtifact::kUnlisted;
}

std::string spec_title(const fs::path& spec_file) {
  try {
    const YAML::Node root = YAML::LoadFile(spec_file.string());
    if (root["title"] && root["title"].IsScalar()) return root["title"].as<std::string>();
  } catch (const YAML::Exception&) {
    // A spec that does not parse is for `capaboost plan` to report; the table's title stands in.
  }
  return "";
}

// The first bold line of a report's table: "**Title** (metric; …)" → "Title".
std::string bold_title(const std::string& markdown) {
  std::istringstream lines(markdown);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("**", 0) != 0) continue;
    const auto end = line.find("**", 2);
    if (end != std::string::npos) return line.substr(2, end - 2);
  }
  return "";
}

std::string collapse_spaces(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  return trim(out);
}

// A path as a link target: characters a Markdown or HTML link would misread are percent-encoded.
std::string url(const std::string& path) {
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || std::string("/._-=~").find(static_cast<char>(c)) != std::string::npos) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

// Profiles in page order: cpu (the make targets' default, the real encoder), mini, then the others.
int profile_rank(const std::string& profile) {
  if (profile == "cpu") return 0;
  if (profile == "mini") return 1;
  return 2;
}

template <typename Folder>
void sort_folders(std::vector<Folder>& folders, std::string Folder::*name) {
  std::sort(folders.begin(), folders.end(), [name](const Folder& a, const Folder& b) {
    return std::make_tuple(profile_rank(a.profile), a.profile, a.*name) <
           std::make_tuple(profile_rank(b.profile), b.profile, b.*name);
  });
}

// A PNG's size from its header: the signature, then the IHDR chunk with width and height, big-endian.
GalleryFigure png_figure(const fs::path& file, const fs::path& folder) {
  GalleryFigure figure{file.lexically_relative(folder).generic_string(), 0, 0};
  std::ifstream in(file, std::ios::binary);
  unsigned char header[24] = {};
  if (!in.read(reinterpret_cast<char*>(header), sizeof header)) return figure;
  static const unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (!std::equal(kSignature, kSignature + 8, header) || std::string(header + 12, header + 16) != "IHDR") return figure;
  auto big_endian = [&](int at) {
    return static_cast<int>((uint32_t{header[at]} << 24) | (uint32_t{header[at + 1]} << 16) |
                            (uint32_t{header[at + 2]} << 8) | uint32_t{header[at + 3]});
  };
  figure.width = big_endian(16);
  figure.height = big_endian(20);
  return figure;
}

std::vector<GalleryFigure> pngs_under(const fs::path& folder) {
  std::vector<GalleryFigure> figures;
  for (const auto& entry : fs::recursive_directory_iterator(folder)) {
    if (entry.is_regular_file() && entry.path().extension() == ".png") figures.push_back(png_figure(entry.path(), folder));
  }
  std::sort(figures.begin(), figures.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return figures;
}

std::string anchor(const std::string& profile, const std::string& name) { return profile + "-" + name; }

std::string short_artifact(const CuratedFolder& folder) {
  if (folder.paper != PaperArtifact::kYes) return "–";
  if (folder.artifact.empty()) return "yes";
  return folder.artifact.substr(0, folder.artifact.find(" ("));
}

// A claim's verdicts over the parts that measured it, in a few words: one part gives its verdict; many
// give "reproduced (all 12 parts)" or each verdict with the parts that gave it.
std::string verdict_over_parts(const std::vector<const GalleryClaim*>& group) {
  if (group.size() == 1) return group.front()->verdict;
  std::vector<std::pair<std::string, std::vector<std::string>>> by_verdict;
  for (const auto* claim : group) {
    auto it = std::find_if(by_verdict.begin(), by_verdict.end(), [&](const auto& v) { return v.first == claim->verdict; });
    if (it == by_verdict.end()) it = by_verdict.insert(by_verdict.end(), {claim->verdict, {}});
    const std::string part = "`" + claim->part + "`";
    if (std::find(it->second.begin(), it->second.end(), part) == it->second.end()) it->second.push_back(part);
  }
  if (by_verdict.size() == 1 && group.size() > kNamedParts) {
    return fmt::format("{} (all {} parts)", by_verdict.front().first, group.size());
  }
  std::vector<std::string> pieces;
  for (const auto& [verdict, parts] : by_verdict) {
    pieces.push_back(fmt::format("{} in {}", verdict, fmt::join(parts, ", ")));
  }
  return fmt::format("{}", fmt::join(pieces, "; "));
}

void render_figures(std::string& out, const std::string& base, const std::vector<GalleryFigure>& figures) {
  if (figures.empty()) return;
  // One figure reads at the page's width; several sit two to a row. A picture taller than wide (a grid of
  // reconstructions) is bounded by its height instead, or it alone would be a screen or more. Each links
  // to the file at full size.
  const int width = figures.size() == 1 ? 640 : 420;
  auto image = [&](const GalleryFigure& figure) {
    const std::string alt = figure.path.substr(0, figure.path.size() - 4);  // without ".png"
    const std::string size = figure.height > figure.width ? fmt::format("height=\"{}\"", kTallHeight)
                                                          : fmt::format("width=\"{}\"", width);
    return fmt::format("<a href=\"{0}\"><img src=\"{0}\" alt=\"{1}\" {2}></a>\n", url(base + figure.path), alt, size);
  };
  for (size_t i = 0; i < std::min(figures.size(), kOpenFigures); ++i) out += image(figures[i]);
  out += "\n";
  if (figures.size() > kOpenFigures) {
    out += fmt::format("<details><summary>{} more figures</summary>\n\n", figures.size() - kOpenFigures);
    for (size_t i = kOpenFigures; i < figures.size(); ++i) out += image(figures[i]);
    out += "\n</details>\n\n";
  }
}

void render_folder(std::string& out, const CuratedFolder& folder, const std::string& prefix) {
  const std::string base = prefix + folder.profile + "/" + folder.spec + "/";
  out += fmt::format("### <a id=\"{}\"></a>{}{}\n\n", anchor(folder.profile, folder.spec), folder.spec,
                     folder.title.empty() ? "" : ": " + folder.title);
  if (!folder.problem.empty()) {
    out += fmt::format("**Not shown:** {} ([the folder]({}))\n\n", folder.problem, url(base));
    return;
  }
  switch (folder.paper) {
    case PaperArtifact::kYes:
      out += fmt::format("- Paper artifact: {}\n", folder.artifact.empty() ? "yes (its spec's opening comment names none)"
                                                                              : folder.artifact);
      break;
    case PaperArtifact::kNo:
      out += "- Not a paper artifact: a check of the suite's own\n";
      break;
    case PaperArtifact::kUnlisted:
      out += "- Not listed in `experiments/paper/settings.yaml` as a paper artifact or as the suite's own\n";
      break;
  }
  out += fmt::format("- Profile `{}`; rendered {} at commit `{}`{}\n", folder.profile, folder.date, folder.commit,
                     folder.command.empty() ? "" : " by `" + folder.command + "`");
  out += folder.keys_kept
             ? "- Run keys kept (`run_keys.txt`): the curated-outputs test fails if today's code plans other runs\n"
             : fmt::format("- As of commit `{}`: no `run_keys.txt`, so nothing checks it against today's code\n",
                           folder.commit);
  out += folder.records_kept
             ? "- Records kept (`records.tar.xz`): `make verify` rebuilds every table and claim from them and fails on any difference\n"
             : "- Records lost: its verdicts were decided before the current rules and are provisional (its README says how to rerun it)\n";
  std::vector<std::string> files = {fmt::format("[the folder]({})", url(base))};
  for (const auto& table : folder.tables) files.push_back(fmt::format("[{}]({})", table, url(base + table)));
  std::vector<std::string> parts;
  for (const auto& part : folder.parts) parts.push_back(fmt::format("[{}]({})", part, url(base + part + "/")));
  std::string parts_text;
  if (parts.size() > kNamedParts) {
    parts_text = fmt::format("; {} parts, one sub-folder each (a split report)", parts.size());
  } else if (!parts.empty()) {
    parts_text = fmt::format("; parts: {}", fmt::join(parts, " · "));
  }
  out += fmt::format("- Files: {}{}\n\n", fmt::join(files, " · "), parts_text);
  render_figures(out, base, folder.figures);
  if (!folder.claims.empty()) {
    // One line per claim and pair of rows: a split report measures the same claim once per part, and a
    // claim may be measured on two pairs of rows (Table 4's budgets), which its line then names.
    std::vector<std::vector<const GalleryClaim*>> groups;
    std::map<std::string, std::set<std::pair<std::string, std::string>>> pairs_of_claim;
    for (const auto& claim : folder.claims) {
      pairs_of_claim[claim.claim].insert({claim.a, claim.b});
      auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) {
        return g.front()->claim == claim.claim && g.front()->a == claim.a && g.front()->b == claim.b;
      });
      if (it == groups.end()) it = groups.insert(groups.end(), std::vector<const GalleryClaim*>{});
      it->push_back(&claim);
    }
    out += "| Claim | Verdict |\n|---|---|\n";
    for (const auto& group : groups) {
      const GalleryClaim& first = *group.front();
      const bool name_rows = pairs_of_claim.at(first.claim).size() > 1;
      out += fmt::format("| {}{} | {} |\n", first.claim, name_rows ? fmt::format(": {} vs {}", first.a, first.b) : "",
                         verdict_over_parts(group));
    }
    out += "\n";
  }
  for (const auto& table : folder.paper_vs_ours) {
    out += fmt::format("**Paper vs ours** ([{}]({})): each cell the paper's mean / ours; † where runs are missing.\n\n",
                       table.table, url(base + table.table));
    out += "| Method |";
    for (const auto& column : table.columns) out += " " + column + " |";
    out += "\n|---|";
    for (size_t i = 0; i < table.columns.size(); ++i) out += "---|";
    out += "\n";
    for (const auto& row : table.rows) out += fmt::format("| {} | {} |\n", row.method, fmt::join(row.cells, " | "));
    out += "\n";
  }
}

}  // namespace

std::vector<GalleryClaim> claims_of(const std::string& markdown, const std::string& part) {
  std::vector<GalleryClaim> claims;
  for (const auto& table : tables_of(markdown)) {
    if (table.heading != "Claims" || table.rows.size() < 2) continue;
    const auto& header = table.rows.front();
    size_t verdict = header.size() - 1;
    std::optional<size_t> a, b;
    for (size_t i = 0; i < header.size(); ++i) {
      if (header[i] == "Verdict") verdict = i;
      if (header[i] == "A") a = i;
      if (header[i] == "B") b = i;
    }
    for (size_t r = 1; r < table.rows.size(); ++r) {
      const auto& row = table.rows[r];
      if (row.size() <= verdict) continue;
      GalleryClaim claim{row.front(), row[verdict], part, "", ""};
      if (a && *a < row.size()) claim.a = row[*a];
      if (b && *b < row.size()) claim.b = row[*b];
      claims.push_back(std::move(claim));
    }
  }
  return claims;
}

PaperVsOurs paper_vs_ours(const std::string& markdown, const std::string& table_name) {
  PaperVsOurs result;
  result.table = table_name;
  const auto tables = tables_of(markdown);
  // The report's own table comes before its first "## " section (paired differences, claims).
  const auto main = std::find_if(tables.begin(), tables.end(), [](const auto& t) { return t.heading.empty(); });
  if (main == tables.end() || main->rows.size() < 2) return result;
  const auto& header = main->rows.front();
  std::map<std::string, const std::vector<std::string>*> by_label;
  for (size_t r = 1; r < main->rows.size(); ++r) by_label[main->rows[r].front()] = &main->rows[r];
  struct Pair {
    std::string method;
    std::vector<std::string> paper, ours;
  };
  std::vector<Pair> pairs;
  for (size_t r = 1; r < main->rows.size(); ++r) {
    const auto& row = main->rows[r];
    const std::string& label = row.front();
    if (label.size() < 2 || label.back() != '*') continue;
    const std::string method = label.substr(0, label.size() - 1);
    const auto ours = by_label.find(method + " (ours)");
    if (ours == by_label.end()) continue;  // a method the suite does not run
    Pair pair{method, {}, {}};
    for (size_t c = 1; c < header.size(); ++c) {
      pair.paper.push_back(c < row.size() ? mean_of(row[c]) : "");
      pair.ours.push_back(c < ours->second->size() ? mean_of((*ours->second)[c]) : "");
    }
    pairs.push_back(std::move(pair));
  }
  // Only columns where some method has both numbers: the rest (tasks a profile does not run, the
  // paper's FLOPs we do not measure) would be dashes from top to bottom.
  std::vector<size_t> kept;
  for (size_t c = 0; c + 1 < header.size(); ++c) {
    for (const auto& pair : pairs) {
      if (!pair.paper[c].empty() && !pair.ours[c].empty()) {
        kept.push_back(c);
        break;
      }
    }
  }
  if (kept.empty()) return result;
  for (size_t c : kept) result.columns.push_back(header[c + 1]);
  for (const auto& pair : pairs) {
    PaperVsOurs::Row row{pair.method, {}};
    for (size_t c : kept) {
      row.cells.push_back(pair.paper[c].empty() || pair.ours[c].empty() ? "–" : pair.paper[c] + " / " + pair.ours[c]);
    }
    result.rows.push_back(std::move(row));
  }
  return result;
}

std::string verdict_counts(const std::vector<GalleryClaim>& claims) {
  if (claims.empty()) return "no claims";
  static const std::vector<std::string> kOrder = {"reproduced",     "partly reproduced", "not reproduced",
                                                  "equivalent",     "partly equivalent", "not equivalent",
                                                  "no signal",      "not testable",      "crosses builds — rerun",
                                                  "not measured"};
  std::map<std::string, int> counts;
  for (const auto& claim : claims) {
    // The verdict without what follows it in parentheses: the regime ("minilm, 3 of 20 epochs") or the
    // side that did not learn.
    const std::string verdict = claim.verdict.substr(0, claim.verdict.find(" ("));
    if (verdict.rfind("reproduced at ", 0) == 0) {
      ++counts["partly reproduced"];
    } else if (verdict.rfind("equivalent at ", 0) == 0) {
      ++counts["partly equivalent"];
    } else {
      ++counts[verdict];
    }
  }
  std::vector<std::string> pieces;
  for (const auto& verdict : kOrder) {
    if (counts.count(verdict)) pieces.push_back(fmt::format("{} {}", counts.at(verdict), verdict));
  }
  for (const auto& [verdict, count] : counts) {  // std::map: the others alphabetically
    if (std::find(kOrder.begin(), kOrder.end(), verdict) == kOrder.end()) pieces.push_back(fmt::format("{} {}", count, verdict));
  }
  return fmt::format("{}", fmt::join(pieces, ", "));
}

CuratedFolder read_curated_folder(const fs::path& folder, const std::string& profile, const fs::path& experiments,
                                  const std::string& shown_as) {
  CuratedFolder result;
  result.profile = profile;
  result.spec = folder.filename().string();
  const fs::path spec_file = experiments / (result.spec + ".yaml");
  result.title = spec_title(spec_file);
  result.paper = paper_listing(experiments, result.spec);
  if (result.paper == PaperArtifact::kYes) result.artifact = artifact_name(spec_file);

  const fs::path readme = folder / "README.md";
  // The make curate-… targets write these lines (Makefile, `define curate`); the fix is to run one.
  const std::string fix =
      "render it again with its `make curate-…` target (docs/harness-and-specs.md), which writes the line, or add "
      "the line \"Rendered YYYY-MM-DD at commit HASH\" by hand with the date and commit its tables were rendered at";
  if (!fs::exists(readme)) {
    result.problem = fmt::format("{}/README.md is missing, so nothing says when its tables were made: {}", shown_as, fix);
    return result;
  }
  const std::string text = read_file(readme);
  static const std::regex kRendered(R"(Rendered (\d{4}-\d{2}-\d{2}) at commit ([0-9A-Za-z]+))");
  std::smatch rendered;
  if (!std::regex_search(text, rendered, kRendered)) {
    result.problem = fmt::format("{}/README.md has no line \"Rendered YYYY-MM-DD at commit HASH\": {}", shown_as, fix);
    return result;
  }
  result.date = rendered[1];
  result.commit = rendered[2];
  static const std::regex kCommand(R"(^\.?\s+by\s+`([^`]*)`)");
  std::smatch command;
  const std::string after = rendered.suffix().str();
  if (std::regex_search(after, command, kCommand, std::regex_constants::match_continuous)) {
    result.command = collapse_spaces(command[1]);
  }
  result.keys_kept = fs::exists(folder / "run_keys.txt");
  result.records_kept = fs::exists(folder / "records.tar.xz");

  std::vector<std::string> tables;  // every Markdown table, sub-folders included, relative to the folder
  for (const auto& entry : fs::recursive_directory_iterator(folder)) {
    const fs::path relative = entry.path().lexically_relative(folder);
    if (entry.is_directory() && relative.parent_path().empty()) result.parts.push_back(relative.generic_string());
    if (!entry.is_regular_file() || entry.path().extension() != ".md" || entry.path().filename() == "README.md") continue;
    tables.push_back(relative.generic_string());
  }
  std::sort(tables.begin(), tables.end());
  std::sort(result.parts.begin(), result.parts.end());
  result.figures = pngs_under(folder);
  for (const auto& table : tables) {
    const std::string markdown = read_file(folder / table);
    const fs::path relative(table);
    if (relative.parent_path().empty()) result.tables.push_back(table);
    if (result.title.empty()) result.title = bold_title(markdown);
    const std::string part = relative.parent_path().empty() ? table : relative.parent_path().generic_string();
    const auto claims = claims_of(markdown, part);
    result.claims.insert(result.claims.end(), claims.begin(), claims.end());
    auto compared = paper_vs_ours(markdown, table);
    if (!compared.rows.empty()) result.paper_vs_ours.push_back(std::move(compared));
  }
  return result;
}

Gallery read_gallery(const fs::path& results, const fs::path& experiments, const std::string& results_shown) {
  if (!fs::is_directory(results)) {
    throw std::runtime_error(fmt::format("{}: no such folder (pass the results folder with --results)", results_shown));
  }
  if (!fs::is_directory(experiments)) {
    throw std::runtime_error(
        fmt::format("{}: no such folder; the gallery reads the specs' titles from it (pass it with --experiments)",
                    experiments.string()));
  }
  // Messages on the page name a folder from the results folder's own name ("results/mini/x"), not as the
  // user spelled it (./results, an absolute path): the page must not change with the command line.
  fs::path normal = fs::absolute(results).lexically_normal();
  if (normal.filename().empty()) normal = normal.parent_path();
  const std::string results_name = normal.filename().string();
  Gallery gallery;
  const auto& profiles = profile_names();
  for (const auto& profile : fs::directory_iterator(results)) {
    const std::string name = profile.path().filename().string();
    if (!profile.is_directory() || std::find(profiles.begin(), profiles.end(), name) == profiles.end()) continue;
    for (const auto& folder : fs::directory_iterator(profile.path())) {
      if (!folder.is_directory()) continue;
      const std::string folder_name = folder.path().filename().string();
      if (fs::exists(experiments / (folder_name + ".yaml"))) {
        gallery.folders.push_back(
            read_curated_folder(folder.path(), name, experiments, results_name + "/" + name + "/" + folder_name));
        continue;
      }
      OtherFolder other{name, folder_name, "", pngs_under(folder.path())};
      std::istringstream lines(read_file(folder.path() / "README.md"));
      for (std::string line; std::getline(lines, line);) {
        if (line.rfind("# ", 0) == 0) {
          other.heading = trim(line.substr(2));
          break;
        }
      }
      gallery.others.push_back(std::move(other));
    }
  }
  sort_folders(gallery.folders, &CuratedFolder::spec);
  sort_folders(gallery.others, &OtherFolder::name);
  return gallery;
}

std::string render_gallery(const Gallery& gallery, const std::string& prefix) {
  std::string out;
  out += "# results/\n\n";
  out += "<!-- Generated by `capaboost gallery` (harness/report/gallery.cpp): regenerate it, do not edit it. -->\n\n";
  out += "This page is generated from the curated folders below by `capaboost gallery --results results` (`make "
         "gallery`), which every `make curate-…` runs after it writes a folder: to change it, render a folder again "
         "or change the generator, then regenerate. It carries no date of its own, so regenerating without a change "
         "to the folders gives the same file.\n\n";
  out += "## What is in results/\n\n";
  out += "Written by the `capaboost` program; nothing here is edited by hand.\n\n";
  out += "- `runs/<key>.json` — one record per run (schema 2, `harness/store/run_record.h`: the resolved config with "
         "every effective parameter, metrics, parameters, ranks, timings, provenance), written atomically. The key is "
         "the SHA-256 of the canonical resolved config, the measure, the code version and the data fingerprint, plus, "
         "for the suite's own encoders (`mini`, `smoke`, their `-random` twins), the SHA-256 of the recipe that builds "
         "them. Records of older code (schema 1, code version `capaboost-bench/1`) still load, but no current run has "
         "their keys: `capaboost status SPEC` counts them and they are not reused.\n";
  out += "- `index.sqlite` — an index of the records for fast queries; `capaboost reindex` rebuilds it.\n";
  out += "- `reports/<spec>/<profile>/` — LaTeX, CSV and Markdown tables and figures from `capaboost report`.\n";
  out += "- `<profile>/<spec>/` — curated copies of a report, committed so a reader sees them without running "
         "anything: `make reproduce-table-N PROFILE=mini && make curate-table-N PROFILE=mini`. Each holds the "
         "report's LaTeX, CSV and Markdown (and figures) plus `README.md` with the command, the date, the commit, "
         "`capaboost status` of the runs behind it (counts and their summed run time), and `run_keys.txt`, the keys "
         "of those runs.\n\n";
  out += "Only curated outputs are committed; runs, the index and reports are ignored by git.\n\n";

  out += "## Every curated folder\n\n";
  out += fmt::format(
      "Each folder is one spec's report on one profile, as of the commit it was rendered at. *Keys checked*: the "
      "folder keeps `run_keys.txt`, and `tests/harness/curated_outputs_test.cpp` fails when today's code would plan "
      "other runs for it; *no*: it was rendered before keys were kept, so it stands as of its commit and nothing "
      "checks it against today's code. *Records*: *kept*, the folder keeps its run records and `make verify` "
      "rebuilds its tables and verdicts from them with today's rules; *lost*, its verdicts predate those rules and "
      "are provisional. *Reproduces*: the paper artifact, for the specs "
      "`experiments/paper/settings.yaml` lists as the paper's; the others are checks of the suite's own. The verdicts are those of each report's claims, measured as paired "
      "differences over seeds ([docs/harness-and-specs.md]({}), \"Claims as paired differences\").\n\n",
      url(prefix + "../docs/harness-and-specs.md"));
  out += "| Folder | Profile | Reproduces | Claims | Rendered at | Keys checked | Records |\n|---|---|---|---|---|---|---|\n";
  for (const auto& folder : gallery.folders) {
    const std::string link = fmt::format("[{}](#{})", folder.spec, anchor(folder.profile, folder.spec));
    if (!folder.problem.empty()) {
      out += fmt::format("| {} | {} | {} | not read: see below | unknown | – | – |\n", link, folder.profile,
                         short_artifact(folder));
      continue;
    }
    out += fmt::format("| {} | {} | {} | {} | `{}`, {} | {} | {} |\n", link, folder.profile, short_artifact(folder),
                       verdict_counts(folder.claims), folder.commit, folder.date, folder.keys_kept ? "yes" : "no",
                       folder.records_kept ? "kept" : "lost");
  }
  out += "\n";

  std::string profile;
  for (const auto& folder : gallery.folders) {
    if (folder.profile != profile) {
      profile = folder.profile;
      out += fmt::format("## Profile `{}`\n\n", profile);
    }
    render_folder(out, folder, prefix);
  }
  if (!gallery.others.empty()) {
    out += "## Other folders\n\n";
    out += "Folders under a profile that are not a spec's report (no `experiments/<name>.yaml`): their README says "
           "how they were made.\n\n";
    for (const auto& other : gallery.others) {
      const std::string base = prefix + other.profile + "/" + other.name + "/";
      out += fmt::format("### <a id=\"{}\"></a>{}/{}\n\n", anchor(other.profile, other.name), other.profile, other.name);
      out += fmt::format("{}[The folder]({})\n\n", other.heading.empty() ? "" : "*" + other.heading + "*: ", url(base));
      render_figures(out, base, other.figures);
    }
  }
  // One newline at the end, however the last section ended.
  while (out.size() > 1 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') out.pop_back();
  return out;
}

}  // namespace capaboost::harness
