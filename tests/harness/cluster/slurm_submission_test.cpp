#include "cluster/slurm_submission.h"

#include "support/temp_dir.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace capaboost::harness;
using capaboost::testing::TempDir;

TEST_CASE("submissions are read back per spec and profile, oldest first", "[harness][slurm]") {
  TempDir dir;
  const std::string results = dir.file("results");
  const auto first = create_submission_directory(results, "table2", "mini");
  CHECK(std::filesystem::is_directory(std::filesystem::path(first) / "logs"));
  write_submission({"41", "table2", "mini", "2026-11-26T08:00:00Z", first, {"k1", "k2"}});
  const auto other = create_submission_directory(results, "table3", "mini");
  write_submission({"42", "table3", "mini", "2026-11-26T08:01:00Z", other, {"k9"}});
  const auto second = create_submission_directory(results, "table2", "mini");
  write_submission({"40", "table2", "mini", "2026-11-26T09:00:00Z", second, {"k3"}});
  create_submission_directory(results, "table2", "mini");  // refused by sbatch: no submission.json

  const auto read = read_submissions(results, "table2", "mini");
  REQUIRE(read.size() == 2);
  CHECK(read[0].job_id == "41");
  CHECK(read[0].keys == std::vector<std::string>{"k1", "k2"});
  CHECK(read[1].job_id == "40");
  CHECK(read_submissions(results, "table2", "paper").empty());
  CHECK(read_submissions(dir.file("nowhere"), "table2", "mini").empty());

  std::ofstream(std::filesystem::path(first) / "submission.json") << "{ torn";
  CHECK_THROWS_WITH(read_submissions(results, "table2", "mini"), Catch::Contains("submission.json"));
}

TEST_CASE("an array task finds its run key on its line of the run list", "[harness][slurm]") {
  TempDir dir;
  const std::string list = dir.file("runs.txt");
  write_run_list(list, {"aaa", "bbb", "ccc"});
  CHECK(run_list_key(list, 0) == "aaa");
  CHECK(run_list_key(list, 2) == "ccc");
  CHECK_THROWS_WITH(run_list_key(list, 3), Catch::Contains("has no line 4"));
  CHECK_THROWS_WITH(run_list_key(dir.file("missing.txt"), 0), Catch::Contains("missing.txt"));
}

TEST_CASE("a submission folder is named by path names only: nothing outside <results>/slurm", "[harness][slurm][path_name]") {
  TempDir dir;
  const std::string results = dir.file("results");
  CHECK_THROWS_WITH(create_submission_directory(results, "../../escaped", "mini"),
                    Catch::Contains("spec name '../../escaped' cannot be a file name"));
  CHECK_THROWS_WITH(create_submission_directory(results, "table2", "mini/../.."), Catch::Contains("profile"));
  CHECK_FALSE(std::filesystem::exists(dir.path() / "escaped"));
}
