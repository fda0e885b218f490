#include "store/run_scalars.h"

#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>

#include "util/sha256.h"

namespace capaboost::harness {

bool has_run_scalars(const RunRecord& record) {
  return record.details.is_object() && record.details.contains("scalars") && record.details["scalars"].is_object() &&
         record.details["scalars"].value("sha256", "").size() == 64;
}

std::vector<ScalarPoint> read_run_scalars(const RecordStore& store, const RunRecord& record) {
  const std::string path = store.scalars_path(record.key);
  if (!has_run_scalars(record)) {
    throw std::runtime_error(fmt::format("{}: the run kept no curves (recorded before runs kept them, or not a "
                                         "training run); re-run it to draw them",
                                         store.record_path(record.key)));
  }
  if (!std::filesystem::exists(path)) {
    throw std::runtime_error(fmt::format("{} is missing; its record names it. Restore it with the record (a curated "
                                         "folder's records.tar.xz) or re-run the run",
                                         path));
  }
  const std::string expected = record.details["scalars"]["sha256"].get<std::string>();
  const std::string actual = sha256_file_hex(path);
  if (actual != expected) {
    throw std::runtime_error(fmt::format("{}: its SHA-256 {} is not the {} its record names: the file changed after "
                                         "the run (edited or truncated). `capaboost fsck --repair` quarantines it; "
                                         "re-run the run to record its curves again",
                                         path, actual.substr(0, 12), expected.substr(0, 12)));
  }
  return read_scalars_csv(path);
}

}  // namespace capaboost::harness
