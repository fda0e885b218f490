// Where researchers look, checked by the tools they look with: two runs fine-tuned through `capaboost run
// --tensorboard` (one of them with two workers' worth of rows), then `capaboost tensorboard` and
// `capaboost export-mlflow`; the real tensorboard event loader and the real MLflow client
// (tests/oracle/tracking_reference.py, pinned in tests/oracle/requirements.txt) read every tag, step and
// value back equal to the runs' scalars files. A damaged scalars file is refused naming the file.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "lib/data/glue_test_support.h"
#include "support/capaboost_program.h"
#include "support/oracle_python.h"
#include "support/read_text.h"
#include "support/reference_python.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using Catch::Contains;
using capaboost::testing::read_text;

TEST_CASE("TensorBoard and MLflow read back every scalar a sweep recorded", "[harness][process][tracking][live]") {
  REQUIRE_MIRROR("RTE");
  capaboost::testing::TempDir dir;
  std::ofstream(dir.file("tracked.yaml")) << "name: tracked\n"
                                             "title: runs with curves\n"
                                             "measure: finetune\n"
                                             "defaults: {model: tiny-random, task: RTE, epochs: 2, batch_size: 8, "
                                             "max_length: 64, train_limit: 32, rank: 4, alpha: 8, grad_clip: 0}\n"
                                             "rows:\n"
                                             "  - {label: LoRA (r=4), method: lora}\n"
                                             "  - {label: CapaBoost-LoRA (d=2), method: lora, branches: 2, grad_clip: 1.0}\n"
                                             "lr_grid: [1.0e-3]\n"
                                             "seeds: [42]\n";
  const fs::path mirror = capaboost::test::mirror_root().path;
  const std::string program = "CAPABOOST_DATA_DIR='" + mirror.string() + "' '" + CAPABOOST_BINARY + "'";
  const std::string spec = "'" + dir.file("tracked.yaml") + "' --results '" + dir.file("results") + "'";
  const std::string live_logdir = dir.file("live"), logdir = dir.file("tb"), store = dir.file("mlruns");
  const auto ran = capaboost::testing::run_command(program + " run " + spec + " --tensorboard '" + live_logdir + "'");
  INFO(ran.output);
  REQUIRE(ran.exit_code == 0);

  const auto records = capaboost::testing::program::records(dir.file("results"));
  REQUIRE(records.size() == 2);
  std::vector<std::string> runs;  // folder, scalars file, folder, …
  for (const auto& [key, record] : records) {
    const fs::path csv = fs::path(dir.file("results")) / "runs" / (key + ".scalars.csv");
    REQUIRE(fs::exists(csv));
    CHECK(record.at("details").at("scalars").at("file") == key + ".scalars.csv");
    // Cost in every record: per-run peak memory, the stored state's size, training and evaluation rates.
    for (const char* metric : {"peak_rss_mib", "adapter_bytes", "train_tokens_per_second", "eval_tokens_per_second"}) {
      CHECK(record.at("metrics").at(metric).get<double>() > 0);
    }
    const std::string folder = (record.at("label") == "LoRA (r=4)" ? "LoRA_r=4" : "CapaBoost-LoRA_d=2") +
                               std::string("/RTE-seed42-") + key.substr(0, 12);
    runs.insert(runs.end(), {folder, csv.string()});
    // `run --tensorboard` wrote the run as it finished: the same folder `capaboost tensorboard` writes.
    CHECK(fs::exists(fs::path(live_logdir) / folder));
  }
  const auto tensorboard = capaboost::testing::run_command(program + " tensorboard " + spec + " '" + logdir + "'");
  INFO(tensorboard.output);
  REQUIRE(tensorboard.exit_code == 0);
  CHECK_THAT(tensorboard.output, Contains("2 run(s) written"));
  const auto mlflow = capaboost::testing::run_command(program + " export-mlflow " + spec + " '" + store + "'");
  INFO(mlflow.output);
  REQUIRE(mlflow.exit_code == 0);
  CHECK_THAT(mlflow.output, Contains("2 run(s), 2 with their curves"));

  std::vector<std::string> arguments = {logdir, store, "tracked/mini"};
  arguments.insert(arguments.end(), runs.begin(), runs.end());
  const std::string read_back = capaboost::testing::run_oracle("tracking_reference.py", arguments);
  CHECK_THAT(read_back, Contains("ok LoRA_r=4/") && Contains("ok CapaBoost-LoRA_d=2/"));
  // Exported twice, the store still holds one run per record.
  REQUIRE(capaboost::testing::run_command(program + " export-mlflow " + spec + " '" + store + "'").exit_code == 0);
  capaboost::testing::run_oracle("tracking_reference.py", arguments);

  SECTION("a truncated scalars file is refused, naming it; the record stands") {
    const std::string csv = runs.at(1);
    const std::string text = read_text(csv);
    std::ofstream(csv, std::ios::trunc) << text.substr(0, text.size() / 2);
    const auto refused = capaboost::testing::run_command(program + " tensorboard " + spec + " '" + logdir + "'");
    CHECK(refused.exit_code != 0);
    CHECK_THAT(refused.output, Contains(csv) && Contains("is not the") && Contains("fsck --repair"));
    const auto status = capaboost::testing::run_command(program + " status " + spec);
    CHECK_THAT(status.output, Contains("2 ok"));
  }
}
