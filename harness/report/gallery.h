#pragma once
// The gallery: results/README.md, one page a reader scrolls to see every curated folder
// (results/<profile>/<spec>/, written by `make curate-…`) without opening them one by one: per folder
// the spec and its title, the paper artifact it reproduces, the commit and date it was rendered at,
// its figures, the verdicts of its claims and the paper's numbers beside ours; on top, a summary table
// of every folder. `capaboost gallery` writes it, and every `make curate-…` runs that after it writes a
// folder, so the page follows the folders.
//
// What each part comes from:
//   title      the spec's `title:` (experiments/<spec>.yaml), else the first bold line of a table
//   artifact   experiments/paper/settings.yaml: a spec under `specs:` is a paper artifact, named by the
//              opening comment line of its YAML up to the first ": " ("# Paper Table 2 (tab:…): …" →
//              "Table 2 (tab:…)"); one under `not_paper:` is the suite's own check
//   rendered   the folder's README.md line "Rendered YYYY-MM-DD at commit HASH" (and "by `COMMAND`")
//   keys kept  run_keys.txt: tests/harness/curated_outputs_test.cpp re-plans the folder against it;
//              without it the folder is as of the commit it names, unchecked against today's code
//   figures    every *.png in the folder and its sub-folders (a split report's parts)
//   claims     the "## Claims" table of every *.md table: its first column and its Verdict column
//   paper/ours a table's rows "X*" (the paper's) and "X (ours)" side by side, means only
//
// A folder whose README.md is missing or names no commit is still listed, with a warning naming the
// file and the fix instead of its content: its tables cannot say when they were made. A folder with
// no spec of its name (a picture of a backbone) is listed apart, with its README's heading and figures.
//
// The page is deterministic: folders, files and claims are sorted and no date of today is written, so
// regenerating without a change to the folders changes nothing.

#include <filesystem>
#include <string>
#include <vector>

namespace capaboost::harness {

/// One row of a curated table's "## Claims" section.
struct GalleryClaim {
  std::string claim;    ///< the claim as the table words it
  std::string verdict;  ///< "reproduced", "not reproduced", "no signal", "reproduced at k of m", …
  /// Where it was measured: the sub-folder of a split report, else the table's file name.
  std::string part;
  std::string a, b;  ///< the rows compared (the table's A and B columns); empty when it has none
};

/// The paper's numbers beside ours in one table: each cell "paper / ours" (means, without ±).
struct PaperVsOurs {
  std::string table;                 ///< the table's Markdown file, relative to the folder
  std::vector<std::string> columns;  ///< the columns at least one row has both numbers in
  struct Row {
    std::string method;
    std::vector<std::string> cells;  ///< one per column; "–" where one side has no number
  };
  std::vector<Row> rows;
};

/// A PNG of a curated folder and its size in pixels (0 when the file is not a PNG), so that a tall
/// picture is shown by its height and does not fill the page.
struct GalleryFigure {
  std::string path;  ///< relative to the folder
  int width = 0;
  int height = 0;
};

enum class PaperArtifact {
  kYes,       ///< listed under `specs:` in experiments/paper/settings.yaml
  kNo,        ///< listed under `not_paper:` (a check or probe of the suite's own)
  kUnlisted,  ///< in neither list (or no settings.yaml)
};

/// What the gallery shows of one results/<profile>/<spec>/ folder.
struct CuratedFolder {
  std::string profile;
  std::string spec;   ///< the folder's name, which is its spec's
  std::string title;  ///< empty when neither the spec nor a table gives one
  PaperArtifact paper = PaperArtifact::kUnlisted;
  std::string artifact;  ///< the paper artifact's name when `paper` is kYes ("Table 2 (tab:…)"); may be empty
  std::string date;      ///< rendered on, YYYY-MM-DD
  std::string commit;    ///< rendered at (short hash, or "unknown" as the curate target writes outside git)
  std::string command;   ///< the command the README says renders it; may be empty
  bool keys_kept = false;  ///< run_keys.txt is there, so the curated-outputs test checks the folder
  /// records.tar.xz is there, so `capaboost verify` rebuilds the folder from its records; without it the
  /// folder's README says its records are lost and its verdicts predate the current rules.
  bool records_kept = false;
  std::vector<GalleryFigure> figures;  ///< PNG files, sorted by path
  std::vector<std::string> tables;   ///< Markdown tables directly in the folder (not README.md), sorted
  std::vector<std::string> parts;    ///< sub-folders (a split report's parts), sorted
  std::vector<GalleryClaim> claims;  ///< by table path, then in each table's order
  std::vector<PaperVsOurs> paper_vs_ours;
  /// Non-empty: why the folder cannot be shown (its README.md is missing or names no commit) and the
  /// fix; the page shows this instead of the folder's content.
  std::string problem;
};

/// A folder under a profile without a spec of its name: shown with its heading and figures only.
struct OtherFolder {
  std::string profile;
  std::string name;
  std::string heading;  ///< its README.md's first "# " heading without the '#'; may be empty
  std::vector<GalleryFigure> figures;
};

struct Gallery {
  std::vector<CuratedFolder> folders;  ///< in page order: cpu, mini, then other profiles; by spec name
  std::vector<OtherFolder> others;     ///< in the same order
};

/// Reads one curated folder. `shown_as` is how messages name it ("results/mini/table1_rank"). Never
/// throws on a malformed folder: it sets `problem` instead.
CuratedFolder read_curated_folder(const std::filesystem::path& folder, const std::string& profile,
                                  const std::filesystem::path& experiments, const std::string& shown_as);

/// Reads every folder of `results`: its sub-folders named after a profile (spec/spec.h,
/// profile_names()) hold the curated folders; runs/, reports/ and the index are not looked at.
/// A folder's `problem` names it from the results folder's own name ("results/mini/x"), however
/// `results` is spelled, so the page does not depend on the command line; `results_shown` is how the
/// error names `results` when it is not a directory. Throws std::runtime_error when `results` or
/// `experiments` is not a directory.
Gallery read_gallery(const std::filesystem::path& results, const std::filesystem::path& experiments,
                     const std::string& results_shown);

/// The page, Markdown. `link_prefix` is the path from the page's folder to the results folder ("" when
/// the page is results/README.md, else ending in '/'); every link and image is relative through it.
std::string render_gallery(const Gallery& gallery, const std::string& link_prefix = "");

/// "2 not reproduced, 1 no signal": each verdict's count without its parenthesis (the regime, or which
/// side did not learn), in a fixed order (reproduced, partly reproduced, not reproduced, equivalent,
/// partly equivalent, not equivalent, no signal, not testable, crosses builds — rerun, not measured,
/// then others alphabetically); "reproduced at k of m" counts as partly reproduced, "equivalent at k of
/// m" as partly equivalent. "no claims" when there are none.
std::string verdict_counts(const std::vector<GalleryClaim>& claims);

/// The paper's rows beside ours in one Markdown table (render_markdown's layout: "X*" the paper's
/// row, "X (ours)" ours). Empty rows when the table has no such pair with a number on both sides.
PaperVsOurs paper_vs_ours(const std::string& markdown, const std::string& table);

/// The "## Claims" rows of one Markdown table (render_comparisons_markdown's layout), `part` set.
std::vector<GalleryClaim> claims_of(const std::string& markdown, const std::string& part);

}  // namespace capaboost::harness
