#include "checkpoint/gguf_value.h"

#include <fmt/format.h>

#include <array>
#include <type_traits>

namespace capaboost {
namespace {

constexpr std::array<const char*, 13> kValueTypeNames = {"uint8", "int8",   "uint16", "int16", "uint32",
                                                         "int32", "float32", "bool",  "string", "array",
                                                         "uint64", "int64", "float64"};
// Error messages quote at most this much of a string value (a chat template runs to kilobytes).
constexpr std::size_t kQuotedBytes = 60;

}  // namespace

std::string to_string(GgufValueType type) {
  const auto code = static_cast<uint32_t>(type);
  return code < kValueTypeNames.size() ? kValueTypeNames[code] : fmt::format("value type {}", code);
}

std::string GgufValue::describe() const {
  return std::visit(
      [this](const auto& held) -> std::string {
        using Held = std::decay_t<decltype(held)>;
        const std::string name = to_string(type());
        if constexpr (std::is_same_v<Held, GgufArray>) {
          return fmt::format("array of {} {}", held.elements.size(), to_string(held.element_type));
        } else if constexpr (std::is_same_v<Held, std::string>) {
          return held.size() <= kQuotedBytes ? fmt::format("string '{}'", held)
                                             : fmt::format("string '{}…' ({} bytes)", held.substr(0, kQuotedBytes),
                                                           held.size());
        } else if constexpr (std::is_same_v<Held, bool>) {
          return held ? "bool true" : "bool false";
        } else if constexpr (std::is_same_v<Held, uint8_t> || std::is_same_v<Held, int8_t>) {
          return fmt::format("{} {}", name, static_cast<int>(held));  // a number, not a character
        } else {
          return fmt::format("{} {}", name, held);
        }
      },
      value);
}

}  // namespace capaboost
