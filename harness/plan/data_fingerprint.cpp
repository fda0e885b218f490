#include "plan/data_fingerprint.h"

#include "data/data_root.h"
#include "tasks/task_registry.h"
#include "util/sha256.h"

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
  return capaboost::resolve_data_root(explicit_root, "../shared/data").path.string();
}

std::string data_fingerprint(const nlohmann::json& config, const std::string& data_root) {
  if (!config.contains("task")) return "none";
  const std::string data_folder = find_task(config.at("task").get<std::string>()).data_folder;
  const fs::path folder = fs::path(data_root) / data_folder;
  if (!fs::is_directory(folder)) return "missing:" + data_folder;

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
