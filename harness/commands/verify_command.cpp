#include "commands/commands.h"
#include "commands/sweep_options.h"
#include "plan/data_fingerprint.h"
#include "report/folder_comparison.h"
#include "report/report_files.h"
#include "store/record_store.h"

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
  const std::string untar = fmt::format("tar -xJf '{}' -C '{}' 2>&1", archive.string(), (results / "runs").string());
  if (std::system(untar.c_str()) != 0) {
    fmt::print("FAILED   {}: {} does not unpack (tar -xJf failed): restore it from git\n", shown, archive.string());
    return Outcome::kFailed;
  }
  SweepOptions sweep_options;
  sweep_options.spec_path = spec_path.string();
  sweep_options.profile = profile;
  sweep_options.results_dir = results.string();
  sweep_options.data_root = options.data_root;
  const Sweep sweep = load_sweep(sweep_options);
  const RecordStore store(results.string());
  ReportInputs inputs{sweep.spec, sweep.runs, store, profile, options.plots};
  inputs.context.data_root = resolve_data_root(options.data_root);
  inputs.quiet = true;
  const fs::path rebuilt = scratch.path() / "report";
  write_report_files(inputs, rebuilt.string());
  const auto differences = compare_report_folders(folder, rebuilt);
  size_t records = 0;
  for (const auto& entry : fs::directory_iterator(results / "runs")) records += entry.path().extension() == ".json";
  if (differences.empty()) {
    fmt::print("verified {}: every table, comparison and figure's data equal to a rebuild from its {} records\n", shown,
               records);
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
