#include "runs/data_fingerprint.h"

#include "data/glue_task.h"
#include "data/sha256.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

namespace capaboost::harness {
namespace {
namespace fs = std::filesystem;
}  // namespace

std::string resolve_data_root(const std::string& explicit_root) {
  if (!explicit_root.empty()) return explicit_root;
  if (const char* env = std::getenv("CAPABOOST_DATA_DIR")) return env;
  return "../shared/data";
}

std::string task_folder(const std::string& task) {
  if (task.rfind("SQuAD", 0) == 0) return "SQuAD";
  return glue_task(task).folder;  // the library's task table; unknown names list the valid ones
}

std::string data_fingerprint(const nlohmann::json& parameters, const std::string& data_root) {
  const std::string task = parameters.value("task", std::string("none"));
  if (task == "none") return "none";
  const fs::path folder = fs::path(data_root) / task_folder(task);
  if (!fs::is_directory(folder)) return "missing:" + task_folder(task);

  static std::mutex mutex;
  static std::map<std::string, std::string> cache;  // one hash per folder per process
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(folder.string()); it != cache.end()) return it->second;
  std::map<std::string, fs::path> files;  // sorted by name: order-independent of the file system
  for (const auto& entry : fs::recursive_directory_iterator(folder)) {
    if (entry.is_regular_file()) files[fs::relative(entry.path(), folder).string()] = entry.path();
  }
  std::string content;
  for (const auto& [name, path] : files) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    content += name + '\0' + std::to_string(bytes.str().size()) + '\0' + bytes.str();
  }
  return cache[folder.string()] = capaboost::sha256_hex(content);
}

}  // namespace capaboost::harness
