#pragma once
// Plugins by name: the one registry shape every extensible family of the suite uses (PEFT methods,
// tasks, backbones, harness measures). An entry is a plain struct with a `name`; a plugin registers
// itself from its own source file at static-initialisation time,
//
//   [[maybe_unused]] const bool registered = register_method(MethodSpec{"lora", ...});
//
// so adding a plugin touches no shared file. The libraries are linked as object libraries, which keeps
// such self-registering translation units in every program (see lib/CMakeLists.txt).

#include <c10/util/Exception.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "util/closest_match.h"

namespace capaboost {

template <typename Entry>
class Registry {
 public:
  /// `what` names an entry in messages ("PEFT method", "task", …).
  explicit Registry(std::string what) : what_(std::move(what)) {}

  /// Adds `entry` under entry.name; a second entry of the same name is refused.
  void add(Entry entry) {
    std::lock_guard<std::mutex> lock(mutex_);
    TORCH_CHECK(!entry.name.empty(), "a ", what_, " needs a name");
    TORCH_CHECK(!entries_.count(entry.name), "a ", what_, " named '", entry.name,
                "' is already registered; choose another name");
    const std::string name = entry.name;
    entries_.emplace(name, std::move(entry));
  }

  /// The entry called `name`, or nullptr. Entries live as long as the program (never removed).
  const Entry* find_if_present(const std::string& name) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = entries_.find(name);
    return it == entries_.end() ? nullptr : &it->second;
  }

  /// The entry called `name`; the error suggests a close name and lists every registered one.
  const Entry& find(const std::string& name) const {
    if (const Entry* entry = find_if_present(name)) return *entry;
    const auto known = names();
    TORCH_CHECK(false, "unknown ", what_, " '", name, "'", did_you_mean(name, known), "; registered: ",
                fmt::format("{}", fmt::join(known, ", ")));
  }

  /// Registered names in sorted order.
  std::vector<std::string> names() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> result;
    for (const auto& entry : entries_) result.push_back(entry.first);
    return result;
  }

  const std::string& what() const { return what_; }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, Entry> entries_;
  std::string what_;
};

}  // namespace capaboost
