// The gallery (results/README.md) on a results folder built here, not on the real results/: folders in
// page order (cpu, mini, others; by spec), figures as relative images, claims and their verdict
// counts, the paper's numbers beside ours, a folder without figures, a folder whose README names no
// commit, and the same page twice.

#include "report/gallery.h"
#include "support/temp_dir.h"
#include "support/text_helpers.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace capaboost::harness;
using Catch::Contains;
namespace fs = std::filesystem;

using capaboost::testing::write_text;

namespace {

// The first 24 bytes of a PNG: signature and IHDR with its width and height, all the gallery reads.
std::string png_header(unsigned width, unsigned height) {
  std::string bytes = std::string("\x89PNG\r\n\x1a\n", 8) + std::string("\0\0\0\x0dIHDR", 8);
  for (unsigned value : {width, height}) {
    for (int shift = 24; shift >= 0; shift -= 8) bytes += static_cast<char>((value >> shift) & 0xff);
  }
  return bytes;
}

std::string readme(const std::string& spec, const std::string& profile, const std::string& commit) {
  return "# " + spec + ", profile " + profile + "\n\nRendered 2026-11-20 at commit " + commit + " by\n`make curate-" +
         spec + " PROFILE=" + profile + "`.\n\n```\nstatus\n```\n";
}

// A report table as `capaboost report` writes it: the paper's rows (X*) before ours (X (ours)), paired
// differences, claims.
const std::string kTableWithPaper =
    "**Alpha on GLUE** (paper_score; profile `mini`, 3 seed(s); * = paper)\n\n"
    "QQP not run on profile mini (n/a).\n\n"
    "| Method | FT params % | FLOPs | CoLA | SST-2 | QQP |\n"
    "|---|---|---|---|---|---|\n"
    "| LoRA* | 0.95 | – | 62.2 | 93.8 ± 0.1 | 88.8 |\n"
    "| LoRA (ours) | 3.51 | 1.00 | 0.0 ± 0.0 | 64.5 ± 0.6 | n/a |\n"
    "| CapaBoost-LoRA* | 0.71 | – | 63.7 ± 0.6 | 94.2 ± 0.1 | 90.9 ± 0.1 |\n"
    "| CapaBoost-LoRA (ours) | 2.63 | 1.98 | – | 61.9 ± 1.2 † | n/a |\n"
    "| AdaMix* | 1.00 | – | 63.2 | 94.3 | 89.9 |\n\n"
    "## Paired differences\n\n"
    "| A | B | where | n | A − B | 95% interval |\n|---|---|---|---|---|---|\n"
    "| CapaBoost-LoRA | LoRA | SST-2 | 3 | -2.6 | [-4.1, -1.2] |\n\n"
    "## Claims\n\n"
    "| Claim | A | B | Our measurement | Verdict |\n|---|---|---|---|---|\n"
    "| CapaBoost-LoRA improves on LoRA | CapaBoost-LoRA | LoRA | A − B from -2.6 to +2.2 | not reproduced |\n"
    "| CapaBoost-LoRA matches AdaLoRA | CapaBoost-LoRA | AdaLoRA | A − B from -4.2 to +4.9 | no signal |\n"
    "| CapaBoost-LoRA beats LoRA on SST-2 | CapaBoost-LoRA | LoRA | A − B = -2.6 | not reproduced |\n"
    "| CapaBoost-LoRA improves on LoRA | CapaBoost-LoRA r=4 | LoRA r=4 | A − B = +0.1 | no signal |\n";

std::string claims_table(const std::string& verdict) {
  return "**Beta (part)** (residual; profile `mini`, 3 seed(s); * = paper)\n\n| Method | rank=4 |\n|---|---|\n"
         "| LoRA | 0.1 ± 0.0 |\n\n## Claims\n\n| The paper's claim | A | B | Our measurement | Verdict |\n"
         "|---|---|---|---|---|\n| More capacity | d=2 | LoRA | A − B = -0.1 | " + verdict + " |\n";
}

// experiments/ with settings.yaml and the specs; results/ with folders of every kind.
struct Fixture {
  capaboost::testing::TempDir dir;
  fs::path experiments = dir.path() / "experiments";
  fs::path results = dir.path() / "results";

  Fixture() {
    write_text(experiments / "paper" / "settings.yaml",
          "# which specs are the paper's\nnot_paper: [zeta_check]\nspecs:\n  alpha_table: []\n  beta_fig: []\n  broken: []\n");
    write_text(experiments / "alpha_table.yaml", "# Paper Table 9 (tab:alpha): the alpha table.\nname: alpha_table\ntitle: Alpha on GLUE\n");
    write_text(experiments / "beta_fig.yaml", "# Paper Figure 7b (fig:beta): split by target.\nname: beta_fig\ntitle: Beta by target\n");
    write_text(experiments / "broken.yaml", "name: broken\ntitle: A folder written by hand\n");
    write_text(experiments / "zeta_check.yaml", "# A check of our own: zeta.\nname: zeta_check\n");  // no title: the table's
    write_text(experiments / "gamma.yaml", "name: gamma\ntitle: Gamma on smoke\n");                 // in no list

    // mini/alpha_table: a paper table with a figure, run keys not kept.
    write_text(results / "mini" / "alpha_table" / "README.md", readme("alpha_table", "mini", "abc1234"));
    write_text(results / "mini" / "alpha_table" / "table.md", kTableWithPaper);
    write_text(results / "mini" / "alpha_table" / "figure.png", png_header(1200, 900));
    // mini/beta_fig: a split report, one part per sub-folder, the same claim in each.
    write_text(results / "mini" / "beta_fig" / "README.md", readme("beta_fig", "mini", "def5678"));
    write_text(results / "mini" / "beta_fig" / "run_keys.txt", "0123456789ab\n");
    write_text(results / "mini" / "beta_fig" / "records.tar.xz", "xz");
    write_text(results / "mini" / "beta_fig" / "low_rank" / "table_residual.md", claims_table("no signal"));
    write_text(results / "mini" / "beta_fig" / "low_rank" / "figure_residual.png", "png");
    write_text(results / "mini" / "beta_fig" / "flat" / "table_residual.md", claims_table("reproduced"));
    write_text(results / "mini" / "beta_fig" / "flat" / "figure_residual.png", "png");
    // mini/broken: a README without its commit line.
    write_text(results / "mini" / "broken" / "README.md", "# broken (profile mini)\n\nMade by hand.\n");
    write_text(results / "mini" / "broken" / "table.md", claims_table("reproduced"));
    // cpu/zeta_check: no figure; its title comes from the table.
    write_text(results / "cpu" / "zeta_check" / "README.md", readme("zeta_check", "cpu", "0a1b2c3"));
    write_text(results / "cpu" / "zeta_check" / "run_keys.txt", "0123456789ab\n");
    write_text(results / "cpu" / "zeta_check" / "table.md",
          "**Zeta from the table** (paper_score; profile `cpu`, 3 seed(s); * = paper)\n\n| Method | SST-2 |\n|---|---|\n"
          "| LoRA | 82.0 ± 0.4 |\n\n## Claims\n\n| The paper's claim | A | B | Our measurement | Verdict |\n"
          "|---|---|---|---|---|\n| One | a | b | m | not reproduced |\n| Two | a | b | m | not reproduced |\n"
          "| Three | a | b | m | no signal |\n| Four | a | b | m | reproduced at 2 of 3 |\n");
    // smoke/gamma: a profile after cpu and mini.
    write_text(results / "smoke" / "gamma" / "README.md", readme("gamma", "smoke", "9f9f9f9"));
    // mini/picture: no spec of its name, a picture of a backbone.
    write_text(results / "mini" / "picture" / "README.md", "# What the encoder learnt\n\nMade by a script.\n");
    write_text(results / "mini" / "picture" / "reconstructions.png", png_header(120, 960));  // taller than wide
    // What the gallery must not look at: records, reports, a folder that is not a profile.
    write_text(results / "runs" / "0123456789ab.json", "{}");
    write_text(results / "reports" / "alpha_table" / "mini" / "table.md", kTableWithPaper);
    write_text(results / "scratch" / "alpha_table" / "README.md", readme("alpha_table", "scratch", "1111111"));
  }
};

}  // namespace

TEST_CASE("the gallery orders folders cpu, mini, then other profiles, by spec name", "[harness][report][gallery]") {
  Fixture fixture;
  const Gallery gallery = read_gallery(fixture.results, fixture.experiments, "results");
  std::vector<std::string> order;
  for (const auto& folder : gallery.folders) order.push_back(folder.profile + "/" + folder.spec);
  CHECK(order == std::vector<std::string>{"cpu/zeta_check", "mini/alpha_table", "mini/beta_fig", "mini/broken", "smoke/gamma"});
  REQUIRE(gallery.others.size() == 1);
  CHECK(gallery.others[0].name == "picture");
  CHECK(gallery.others[0].heading == "What the encoder learnt");

  const std::string page = render_gallery(gallery);
  // The sections come in the same order, each under its profile's heading.
  const auto cpu = page.find("## Profile `cpu`");
  const auto zeta = page.find("<a id=\"cpu-zeta_check\"></a>zeta_check: Zeta from the table");
  const auto mini = page.find("## Profile `mini`");
  const auto alpha = page.find("<a id=\"mini-alpha_table\"></a>alpha_table: Alpha on GLUE");
  const auto beta = page.find("<a id=\"mini-beta_fig\"></a>beta_fig: Beta by target");
  const auto smoke = page.find("## Profile `smoke`");
  const auto gamma = page.find("<a id=\"smoke-gamma\"></a>gamma: Gamma on smoke");
  const auto others = page.find("## Other folders");
  for (auto at : {cpu, zeta, mini, alpha, beta, smoke, gamma, others}) REQUIRE(at != std::string::npos);
  CHECK(cpu < zeta);
  CHECK(zeta < mini);
  CHECK(mini < alpha);
  CHECK(alpha < beta);
  CHECK(beta < smoke);
  CHECK(smoke < gamma);
  CHECK(gamma < others);
  CHECK(page.find("scratch") == std::string::npos);
  CHECK(page.find("reports/alpha_table") == std::string::npos);
}

TEST_CASE("the gallery's summary table gives each folder's artifact, verdict counts and commit", "[harness][report][gallery]") {
  Fixture fixture;
  const std::string page = render_gallery(read_gallery(fixture.results, fixture.experiments, "results"));
  CHECK_THAT(page, Contains("| [zeta_check](#cpu-zeta_check) | cpu | – | 1 partly reproduced, 2 not reproduced, 1 no signal "
                            "| `0a1b2c3`, 2026-11-20 | yes | lost |\n"));
  CHECK_THAT(page, Contains("| [alpha_table](#mini-alpha_table) | mini | Table 9 | 2 not reproduced, 2 no signal "
                            "| `abc1234`, 2026-11-20 | no | lost |\n"));
  CHECK_THAT(page, Contains("| [beta_fig](#mini-beta_fig) | mini | Figure 7b | 1 reproduced, 1 no signal "
                            "| `def5678`, 2026-11-20 | yes | kept |\n"));
  CHECK_THAT(page, Contains("| [gamma](#smoke-gamma) | smoke | – | no claims | `9f9f9f9`, 2026-11-20 | no | lost |\n"));
  CHECK_THAT(page, Contains("- Paper artifact: Table 9 (tab:alpha)\n"));
  CHECK_THAT(page, Contains("- Not a paper artifact: a check of the suite's own\n"));
  CHECK_THAT(page, Contains("- Not listed in `experiments/paper/settings.yaml`"));
  CHECK_THAT(page, Contains("- Profile `mini`; rendered 2026-11-20 at commit `abc1234` by `make curate-alpha_table PROFILE=mini`\n"));
  CHECK_THAT(page, Contains("- As of commit `abc1234`: no `run_keys.txt`"));
}

TEST_CASE("the gallery shows figures as relative images, and none for a folder without", "[harness][report][gallery]") {
  Fixture fixture;
  const Gallery gallery = read_gallery(fixture.results, fixture.experiments, "results");
  std::vector<std::string> figures;
  for (const auto& figure : gallery.folders[2].figures) figures.push_back(figure.path);
  CHECK(figures == std::vector<std::string>{"flat/figure_residual.png", "low_rank/figure_residual.png"});
  REQUIRE(gallery.folders[1].figures.size() == 1);  // the size read from the PNG's header
  CHECK(gallery.folders[1].figures[0].path == "figure.png");
  CHECK(gallery.folders[1].figures[0].width == 1200);
  CHECK(gallery.folders[1].figures[0].height == 900);
  CHECK(gallery.folders[2].parts == std::vector<std::string>{"flat", "low_rank"});
  const std::string page = render_gallery(gallery);
  // One figure at the page's width, linked to itself; two side by side; a tall one by its height.
  CHECK_THAT(page, Contains("<a href=\"mini/alpha_table/figure.png\"><img src=\"mini/alpha_table/figure.png\" "
                            "alt=\"figure\" width=\"640\"></a>"));
  CHECK_THAT(page, Contains("<img src=\"mini/beta_fig/flat/figure_residual.png\" alt=\"flat/figure_residual\" width=\"420\">"));
  CHECK_THAT(page, Contains("<img src=\"mini/beta_fig/low_rank/figure_residual.png\""));
  CHECK_THAT(page, Contains("<img src=\"mini/picture/reconstructions.png\" alt=\"reconstructions\" height=\"480\">"));
  CHECK_THAT(page, Contains("### <a id=\"mini-picture\"></a>mini/picture\n\n*What the encoder learnt*: [The folder](mini/picture/)"));
  CHECK_THAT(page, Contains("parts: [flat](mini/beta_fig/flat/) · [low_rank](mini/beta_fig/low_rank/)"));
  // cpu/zeta_check has no figure: its section (up to the next) holds no image, but its table and folder.
  const auto zeta = page.find("<a id=\"cpu-zeta_check\">");
  const auto next = page.find("## Profile `mini`");
  REQUIRE(zeta < next);
  const std::string section = page.substr(zeta, next - zeta);
  CHECK(section.find("<img") == std::string::npos);
  CHECK_THAT(section, Contains("[the folder](cpu/zeta_check/) · [table.md](cpu/zeta_check/table.md)"));
  // A page written elsewhere reaches the folders through the prefix.
  CHECK_THAT(render_gallery(gallery, "../results/"), Contains("<img src=\"../results/mini/alpha_table/figure.png\""));
}

TEST_CASE("the gallery lists each claim with its verdict, one line per claim over a split report's parts",
          "[harness][report][gallery]") {
  Fixture fixture;
  const std::string page = render_gallery(read_gallery(fixture.results, fixture.experiments, "results"));
  CHECK_THAT(page, Contains("| Claim | Verdict |\n|---|---|\n"
                            "| CapaBoost-LoRA improves on LoRA: CapaBoost-LoRA vs LoRA | not reproduced |\n"
                            "| CapaBoost-LoRA matches AdaLoRA | no signal |\n"
                            "| CapaBoost-LoRA beats LoRA on SST-2 | not reproduced |\n"
                            "| CapaBoost-LoRA improves on LoRA: CapaBoost-LoRA r=4 vs LoRA r=4 | no signal |\n"));
  CHECK_THAT(page, Contains("| More capacity | reproduced in `flat`; no signal in `low_rank` |\n"));

  const auto claims = claims_of(kTableWithPaper, "table.md");
  REQUIRE(claims.size() == 4);
  CHECK(claims[1].claim == "CapaBoost-LoRA matches AdaLoRA");
  CHECK(claims[1].verdict == "no signal");
  CHECK(claims[1].part == "table.md");
  CHECK(claims[1].a == "CapaBoost-LoRA");
  CHECK(claims[1].b == "AdaLoRA");
  CHECK(verdict_counts(claims) == "2 not reproduced, 2 no signal");
  CHECK(verdict_counts({}) == "no claims");
  CHECK(verdict_counts({{"a", "reproduced", "", "", ""}, {"b", "odd", "", "", ""}, {"c", "reproduced at 1 of 2", "", "", ""}}) ==
        "1 reproduced, 1 partly reproduced, 1 odd");
  // The regime and the reason in parentheses do not split a verdict's count.
  CHECK(verdict_counts({{"a", "not reproduced (minilm, 3 of 20 epochs)", "", "", ""},
                        {"b", "not reproduced", "", "", ""},
                        {"c", "equivalent at 1 of 3 (minilm)", "", "", ""},
                        {"d", "not testable (B did not learn)", "", "", ""},
                        {"e", "crosses builds — rerun", "", "", ""}}) ==
        "2 not reproduced, 1 partly equivalent, 1 not testable, 1 crosses builds — rerun");
}

TEST_CASE("the gallery sets the paper's means beside ours where both have a number", "[harness][report][gallery]") {
  const PaperVsOurs compared = paper_vs_ours(kTableWithPaper, "table.md");
  // FLOPs (the paper gives none) and QQP (not run here) drop; AdaMix has no row of ours.
  CHECK(compared.columns == std::vector<std::string>{"FT params %", "CoLA", "SST-2"});
  REQUIRE(compared.rows.size() == 2);
  CHECK(compared.rows[0].method == "LoRA");
  CHECK(compared.rows[0].cells == std::vector<std::string>{"0.95 / 3.51", "62.2 / 0.0", "93.8 / 64.5"});
  CHECK(compared.rows[1].cells == std::vector<std::string>{"0.71 / 2.63", "–", "94.2 / 61.9 †"});
  CHECK(paper_vs_ours(claims_table("reproduced"), "table.md").rows.empty());  // no paper rows

  Fixture fixture;
  const std::string page = render_gallery(read_gallery(fixture.results, fixture.experiments, "results"));
  CHECK_THAT(page, Contains("**Paper vs ours** ([table.md](mini/alpha_table/table.md)): each cell the paper's mean / ours"));
  CHECK_THAT(page, Contains("| Method | FT params % | CoLA | SST-2 |\n|---|---|---|---|\n| LoRA | 0.95 / 3.51 | 62.2 / 0.0 | 93.8 / 64.5 |\n"));
}

TEST_CASE("the gallery lists a folder whose README names no commit with a warning and the fix", "[harness][report][gallery]") {
  Fixture fixture;
  const Gallery gallery = read_gallery(fixture.results, fixture.experiments, "results");
  const CuratedFolder& broken = gallery.folders[3];
  REQUIRE(broken.spec == "broken");
  CHECK_THAT(broken.problem, Contains("results/mini/broken/README.md has no line \"Rendered YYYY-MM-DD at commit HASH\""));
  CHECK_THAT(broken.problem, Contains("make curate-"));
  CHECK(broken.claims.empty());
  const std::string page = render_gallery(gallery);
  CHECK_THAT(page, Contains("| [broken](#mini-broken) | mini | yes | not read: see below | unknown | – | – |\n"));
  CHECK_THAT(page, Contains("**Not shown:** results/mini/broken/README.md has no line"));

  fs::remove(fixture.results / "mini" / "broken" / "README.md");
  const auto missing = read_curated_folder(fixture.results / "mini" / "broken", "mini", fixture.experiments, "results/mini/broken");
  CHECK_THAT(missing.problem, Contains("results/mini/broken/README.md is missing"));
}

TEST_CASE("the gallery is the same page however often it is made", "[harness][report][gallery]") {
  Fixture fixture;
  const std::string first = render_gallery(read_gallery(fixture.results, fixture.experiments, "results"));
  const std::string second = render_gallery(read_gallery(fixture.results, fixture.experiments, "results"));
  CHECK(first == second);
  CHECK(first.back() == '\n');
  CHECK(first.find("\n\n\n") == std::string::npos);
  CHECK_THAT(first, Contains("capaboost gallery --results results"));
}

TEST_CASE("the gallery names the folder it needs when one is missing", "[harness][report][gallery]") {
  Fixture fixture;
  CHECK_THROWS_WITH(read_gallery(fixture.dir.path() / "nowhere", fixture.experiments, "nowhere"),
                    Contains("nowhere: no such folder (pass the results folder with --results)"));
  CHECK_THROWS_WITH(read_gallery(fixture.results, fixture.dir.path() / "nothing", "results"), Contains("--experiments"));
}
