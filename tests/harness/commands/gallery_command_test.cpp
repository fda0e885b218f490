// `capaboost gallery` as the curate targets run it: the page written where asked, its links relative
// to where it lies, a malformed folder a warning (not a failure), and a second run the same bytes.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "support/read_text.h"
#include "support/reference_python.h"
#include "support/temp_dir.h"
#include "support/text_helpers.h"

using Catch::Contains;
namespace fs = std::filesystem;
using capaboost::testing::read_text;
using capaboost::testing::run_command;

using capaboost::testing::write_text;

namespace {

}  // namespace

TEST_CASE("gallery writes the page, warns of a folder it cannot read, and repeats itself", "[harness][process][gallery]") {
  capaboost::testing::TempDir dir;
  const fs::path experiments = dir.path() / "experiments";
  const fs::path results = dir.path() / "results";
  write_text(experiments / "paper" / "settings.yaml", "not_paper: [check]\nspecs:\n  table9: []\n");
  write_text(experiments / "table9.yaml", "# Paper Table 9 (tab:nine): nine.\nname: table9\ntitle: Nine\n");
  write_text(experiments / "check.yaml", "name: check\ntitle: A check\n");
  write_text(results / "mini" / "table9" / "README.md", "# table9\n\nRendered 2026-11-20 at commit abc1234 by\n`make x`.\n");
  write_text(results / "mini" / "table9" / "figure.png", "png");
  write_text(results / "mini" / "check" / "README.md", "# check, written by hand\n");
  const std::string program = std::string("'") + CAPABOOST_BINARY + "' gallery --experiments '" + experiments.string() + "' ";

  const auto written = run_command("cd '" + dir.path().string() + "' && " + program + "--results results");
  INFO(written.output);
  REQUIRE(written.exit_code == 0);
  CHECK_THAT(written.output, Contains("capaboost gallery: warning: results/mini/check/README.md has no line"));
  CHECK_THAT(written.output, Contains("wrote results/README.md: 2 curated folder(s), 1 not read"));
  const std::string page = read_text(results / "README.md");
  CHECK_THAT(page, Contains("<img src=\"mini/table9/figure.png\""));
  CHECK_THAT(page, Contains("| [table9](#mini-table9) | mini | Table 9 | no claims | `abc1234`, 2026-11-20 | no |"));

  const auto again = run_command(program + "--results '" + results.string() + "'");
  REQUIRE(again.exit_code == 0);
  CHECK(read_text(results / "README.md") == page);

  // Elsewhere, the links go back to the results folder.
  const auto elsewhere = run_command(program + "--results '" + results.string() + "' --out '" + (dir.path() / "docs" / "g.md").string() + "'");
  CHECK(elsewhere.exit_code == 1);  // no docs/ folder: a clear error, not a crash
  fs::create_directories(dir.path() / "docs");
  REQUIRE(run_command(program + "--results '" + results.string() + "' --out '" + (dir.path() / "docs" / "g.md").string() + "'").exit_code == 0);
  CHECK_THAT(read_text(dir.path() / "docs" / "g.md"), Contains("<img src=\"../results/mini/table9/figure.png\""));
}
