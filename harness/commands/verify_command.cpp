#include "commands/commands.h"
#include "cluster/program_output.h"
#include "commands/sweep_options.h"
#include "plan/data_fingerprint.h"
#include "report/folder_comparison.h"
#include "report/report_files.h"
#include "store/record_store.h"
#include "util/path_name.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace capaboost::harness {
namespace {

namespace fs = std::filesystem;

// What a folder's README says when its records are gone: then its tables cannot be rebuilt, and verify
// says so instead of failing. The phrase is the curate convention (docs/harness-and-specs.md).
constexpr const char* kRecordsLostPhrase = "records lost";

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A scratch folder removed when the verification of one folder ends.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "capaboost-verify-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("verify: cannot make a scratch folder in " + pattern);
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

struct VerifyOptions {
  std::vector<std::string> folders;
  std::string experiments = "experiments";
  std::string data_root;
  std::string plots = "plots";
};

// The first member of `tar -tv`'s listing that is not a plain file named <name>.json (a folder, a link, a
// path with a separator or '..'), or "" when every member is a record file ("./" before a name allowed).
std::string first_unsafe_member(const std::string& verbose_listing) {
  std::istringstream lines(verbose_listing);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    // "-rw-r--r-- 0/0 7792 1970-01-01 00:00 <name>": the type is the mode's first letter, the name the
    // sixth field on (a link's line goes on with " -> target", which the name rule refuses).
    std::istringstream fields(line);
    std::string mode, owner, size, date, time;
    fields >> mode >> owner >> size >> date >> time;
    std::string name;
    std::getline(fields >> std::ws, name);
    // `tar -C folder .` names the folder itself "./" and its files "./<name>": the same flat archive.
    if (name == "./" && !mode.empty() && mode[0] == 'd') continue;
    if (name.rfind("./", 0) == 0) name.erase(0, 2);
    // A run record, or a run's curves beside it (store/run_scalars.h).
    const auto named = [&](const std::string& suffix) {
      return name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 &&
             !path_name_problem(name.substr(0, name.size() - suffix.size()));
    };
    if (mode.empty() || mode[0] != '-' || !(named(".json") || named(".scalars.csv"))) return name.empty() ? line : name;
  }
  return "";
}

enum class Outcome { kVerified, kRecordsLost, kNotReport, kFailed };

// Rebuilds `folder` (results/<profile>/<spec>) from its records.tar.xz and compares; prints what it found.
Outcome verify_folder(const fs::path& folder, const VerifyOptions& options) {
  const std::string shown = folder.string();
  const std::string spec_name = folder.filename().string();
  const std::string profile = folder.parent_path().filename().string();
  const fs::path spec_path = fs::path(options.experiments) / (spec_name + ".yaml");
  if (!fs::is_directory(folder)) {
    fmt::print("FAILED   {}: not a folder\n", shown);
    return Outcome::kFailed;
  }
  if (!fs::exists(spec_path)) {
    // A folder of pictures beside the reports (results/mini/mini_vit), as the gallery shows it.
    fmt::print("skipped  {}: no spec {} of its name, so not a report\n", shown, spec_path.string());
    return Outcome::kNotReport;
  }
  const fs::path archive = folder / "records.tar.xz";
  if (!fs::exists(archive)) {
    if (lower(read_file(folder / "README.md")).find(kRecordsLostPhrase) != std::string::npos) {
      fmt::print("not verified {}: its records are lost (its README says why and how to rerun it)\n", shown);
      return Outcome::kRecordsLost;
    }
    fmt::print("FAILED   {}: no records.tar.xz, so its tables cannot be rebuilt. Curate it again from its runs "
               "(make curate-… keeps the records), or say in its README why they are gone (\"Records lost: rerun "
               "with …\")\n",
               shown);
    return Outcome::kFailed;
  }
  ScratchDir scratch;
  const fs::path results = scratch.path() / "results";
  fs::create_directories(results / "runs");
  // The archive is read as untrusted: every member must be one record file (runs/<key>.json) or a run's
  // curves (runs/<key>.scalars.csv), no folder, no link, before tar writes anything; tar runs without a shell.
  const ProgramOutput listing = run_program({"tar", "-tvJf", archive.string()});
  if (!listing.started || listing.exit_code != 0) {
    fmt::print("FAILED   {}: {} does not unpack (tar -tJf failed: {}): restore it from git\n", shown, archive.string(),
               listing.err);
    return Outcome::kFailed;
  }
  if (const std::string odd = first_unsafe_member(listing.out); !odd.empty()) {
    fmt::print("FAILED   {}: {} holds '{}', which is not a run record (runs/<key>.json) or its curves "
               "(runs/<key>.scalars.csv): nothing was unpacked; "
               "curate the folder again\n",
               shown, archive.string(), odd);
    return Outcome::kFailed;
  }
  const ProgramOutput untar = run_program({"tar", "-xJf", archive.string(), "-C", (results / "runs").string()});
  if (!untar.started || untar.exit_code != 0) {
    fmt::print("FAILED   {}: {} does not unpack (tar -xJf failed: {}): restore it from git\n", shown, archive.string(),
               untar.err);
    return Outcome::kFailed;
  }
  SweepOptions sweep_options;
  sweep_options.spec_path = spec_path.string();
  sweep_options.profile = profile;
  sweep_options.results_dir = results.string();
  sweep_options.data_root = options.data_root;
  const Sweep sweep = load_sweep(sweep_options);
  const RecordStore store(results.string());
  ReportInputs inputs{sweep.spec, sweep.runs, store, profile, options.plots, RunContext{}};
  inputs.context.data_root = resolve_data_root(options.data_root);
  inputs.quiet = true;
  const fs::path rebuilt = scratch.path() / "report";
  write_report_files(inputs, rebuilt.string());
  const auto differences = compare_report_folders(folder, rebuilt);
  // The rebuild used none of the records that fail their checks (RecordStore::inspect); such a record fails
  // the folder even when the tables happen to agree. Records of schema ≤ 2 carry no digest: said, not hidden.
  size_t records = 0, unsealed = 0;
  std::vector<std::string> failing;
  for (const auto& stored : store.inspect_all()) {
    ++records;
    if (!stored.problem.empty()) failing.push_back(fmt::format("{}.json: {}", stored.key, stored.problem));
    unsealed += stored.unsealed ? 1 : 0;
  }
  const std::string seals = unsealed == 0 ? "each sealed" : unsealed == records ? "written before seals, so unchecked"
                                                                               : fmt::format("{} before seals", unsealed);
  if (!failing.empty()) {
    fmt::print("FAILED   {}: {} of its {} records fail their checks and were not used:\n", shown, failing.size(), records);
    for (const auto& line : failing) fmt::print("           {}\n", line);
    fmt::print("         restore {} from git, or curate the folder again from good records\n", archive.string());
    return Outcome::kFailed;
  }
  if (differences.empty()) {
    fmt::print("verified {}: every table, comparison and figure's data equal to a rebuild from its {} records ({})\n",
               shown, records, seals);
    return Outcome::kVerified;
  }
  fmt::print("FAILED   {}: {} difference(s) from a rebuild from its {} records with today's report code:\n", shown,
             differences.size(), records);
  for (const auto& difference : differences) fmt::print("           {}\n", difference);
  fmt::print("         re-render it (make restore-records, then its make curate-… target), or find who edited it\n");
  return Outcome::kFailed;
}

}  // namespace

Command verify_command(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "verify", "Rebuild curated folders' tables, comparisons and claims from their archived records and compare");
  auto options = std::make_shared<VerifyOptions>();
  sub->add_option("folders", options->folders, "curated folders, results/<profile>/<spec>")->required();
  sub->add_option("--experiments", options->experiments, "folder of the specs (default: experiments)");
  sub->add_option("--data-root", options->data_root, "GLUE/SQuAD data root (default: $CAPABOOST_DATA_DIR, else ../shared/data)");
  sub->add_option("--plots", options->plots, "folder of the gnuplot templates");
  return {sub, [options] {
            int verified = 0, lost = 0, skipped = 0, failed = 0;
            for (const auto& folder : options->folders) {
              // A trailing slash (results/cpu/x/, as a shell glob gives it) names the same folder.
              const fs::path path = fs::path(folder).lexically_normal();
              switch (verify_folder(path.filename().empty() ? path.parent_path() : path, *options)) {
                case Outcome::kVerified: ++verified; break;
                case Outcome::kRecordsLost: ++lost; break;
                case Outcome::kNotReport: ++skipped; break;
                case Outcome::kFailed: ++failed; break;
              }
            }
            fmt::print("verify: {} verified, {} with records lost (not verifiable), {} not reports, {} failed\n", verified,
                       lost, skipped, failed);
            return failed ? int{kExitError} : int{kExitOk};
          }};
}

}  // namespace capaboost::harness
