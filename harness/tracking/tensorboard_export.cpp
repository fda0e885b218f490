#include "tracking/tensorboard_export.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "store/run_scalars.h"
#include "tracking/tensorboard_events.h"
#include "util/atomic_file.h"
#include "util/path_name.h"

namespace capaboost::harness {

namespace fs = std::filesystem;

std::string tensorboard_run_folder(const RunRecord& record) {
  const std::string task = record.config.is_object() ? record.config.value("task", "") : "";
  const nlohmann::json seed = record.config.is_object() ? record.config.value("seed", nlohmann::json()) : nlohmann::json();
  std::string run = fmt::format("seed{}-{}", seed.is_number_integer() ? seed.dump() : "0", record.key.substr(0, 12));
  if (!task.empty()) run = path_name_slug(task, 32) + "-" + run;
  return path_name_slug(record.label.empty() ? record.name : record.label) + "/" + run;
}

std::string write_tensorboard_run(const std::string& log_dir, const RecordStore& store, const RunRecord& record) {
  const std::vector<ScalarPoint> points = read_run_scalars(store, record);
  const double start = run_started_at_seconds(record);
  const fs::path folder = fs::path(log_dir) / tensorboard_run_folder(record);
  fs::create_directories(folder);
  // One file per run with a name fixed by the run: a second export replaces it instead of adding a
  // second file whose points TensorBoard would draw twice. TensorBoard reads any name with "tfevents".
  const fs::path file = folder / fmt::format("events.out.tfevents.{}.capaboost", static_cast<int64_t>(std::floor(start)));
  write_file_atomically(file.string(), encode_event_file(points, start));
  // A rerun of the key started at another second: its predecessor's file goes.
  for (const auto& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (entry.path() != file && name.rfind("events.out.tfevents.", 0) == 0 && entry.path().extension() == ".capaboost") {
      fs::remove(entry.path());
    }
  }
  return file.string();
}

}  // namespace capaboost::harness
