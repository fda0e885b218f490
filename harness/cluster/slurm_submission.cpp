#include "cluster/slurm_submission.h"

#include "util/atomic_file.h"
#include "util/path_name.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace capaboost::harness {
namespace {

namespace fs = std::filesystem;

fs::path slurm_folder(const std::string& results_dir) { return fs::absolute(fs::path(results_dir) / "slurm"); }

}  // namespace

std::string create_submission_directory(const std::string& results_dir, const std::string& spec,
                                        const std::string& profile) {
  // Both name the folder under <results>/slurm/: neither may lead out of it.
  check_path_name(spec, "spec name");
  check_path_name(profile, "profile");
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", std::gmtime(&now));
  const fs::path base = slurm_folder(results_dir) / fmt::format("{}-{}-{}-{}", spec, profile, stamp, ::getpid());
  std::error_code error;
  fs::create_directories(base.parent_path(), error);
  // A folder of its own even for several submissions of one process within a second.
  for (int attempt = 1; !error; ++attempt) {
    const fs::path directory = attempt == 1 ? base : fs::path(base.string() + "-" + std::to_string(attempt));
    if (fs::create_directory(directory, error)) {
      fs::create_directory(directory / "logs", error);
      if (!error) return directory.string();
    }
  }
  throw std::runtime_error(fmt::format("{}: cannot create the submission folder: {}; make the results directory "
                                       "writable", base.string(), error.message()));
}

std::string run_list_path(const std::string& directory) { return (fs::path(directory) / "runs.txt").string(); }

void write_run_list(const std::string& path, const std::vector<std::string>& keys) {
  std::string text;
  for (const auto& key : keys) text += key + "\n";
  write_file_atomically(path, text);
}

std::string run_list_key(const std::string& path, size_t task) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot read the run list of this array task", path));
  std::string line;
  for (size_t i = 0; i <= task; ++i) {
    if (!std::getline(in, line)) {
      throw std::runtime_error(fmt::format("{}: has no line {} for array task {}; the array and its run list do not "
                                           "match — submit again with `capaboost run SPEC --backend slurm`",
                                           path, task + 1, task));
    }
  }
  return line;
}

void write_submission(const SlurmSubmission& submission) {
  const nlohmann::json json = {{"job_id", submission.job_id},     {"spec", submission.spec},
                               {"profile", submission.profile},   {"submitted_at", submission.submitted_at},
                               {"keys", submission.keys}};
  write_file_atomically((fs::path(submission.directory) / "submission.json").string(), json.dump(1) + "\n");
}

std::vector<SlurmSubmission> read_submissions(const std::string& results_dir, const std::string& spec,
                                              const std::string& profile) {
  std::vector<SlurmSubmission> submissions;
  std::error_code ignored;
  for (const auto& entry : fs::directory_iterator(slurm_folder(results_dir), ignored)) {
    const fs::path file = entry.path() / "submission.json";
    if (!fs::exists(file)) continue;
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    try {
      const auto json = nlohmann::json::parse(text.str());
      if (json.at("spec") != spec || json.at("profile") != profile) continue;
      submissions.push_back({json.at("job_id").get<std::string>(), spec, profile,
                             json.at("submitted_at").get<std::string>(), entry.path().string(),
                             json.at("keys").get<std::vector<std::string>>()});
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error(fmt::format("{}: not a readable submission record ({}); delete its folder if its jobs "
                                           "have ended", file.string(), e.what()));
    }
  }
  std::sort(submissions.begin(), submissions.end(),
            [](const auto& a, const auto& b) {
              return std::tie(a.submitted_at, a.directory) < std::tie(b.submitted_at, b.directory);
            });
  return submissions;
}

}  // namespace capaboost::harness
