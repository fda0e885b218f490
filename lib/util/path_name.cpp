#include "util/path_name.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace capaboost {
namespace {

bool is_alnum(unsigned char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// '=' stays allowed: a split report's folders name "parameter=value" parts; it has no meaning to a shell
// word inside quotes, to a path, or to a Markdown link.
bool is_allowed(unsigned char c) { return is_alnum(c) || c == '.' || c == '_' || c == '-' || c == '='; }

}  // namespace

std::string path_name_rule() {
  return fmt::format("1–{} characters from A–Z a–z 0–9 . _ - =, starting with a letter or digit", kMaxPathNameLength);
}

std::string printable_name(std::string_view name) {
  std::string shown;
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    shown += byte < 0x20 || byte >= 0x7f ? fmt::format("\\x{:02x}", byte) : std::string(1, c);
  }
  return shown;
}

std::optional<std::string> path_name_problem(std::string_view name) {
  if (name.empty()) return "is empty";
  if (name.size() > kMaxPathNameLength) return fmt::format("is {} characters long", name.size());
  // Order matters for the message: a traversal is named as such before the character that carries it.
  if (name.find("..") != std::string_view::npos) return "contains '..'";
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '/' || c == '\\') return fmt::format("contains '{}' (a folder separator)", c);
    if (byte < 0x20 || byte == 0x7f) return fmt::format("contains the control character 0x{:02x}", byte);
    if (!is_allowed(byte)) {
      return byte >= 0x80 ? fmt::format("contains the non-ASCII byte 0x{:02x}", byte)
                          : fmt::format("contains '{}'", c);
    }
  }
  if (!is_alnum(static_cast<unsigned char>(name.front()))) return fmt::format("starts with '{}'", name.front());
  return std::nullopt;
}

std::string path_name_slug(std::string_view text, size_t max_length) {
  std::string slug;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (is_allowed(byte) && !(c == '.' && !slug.empty() && slug.back() == '.')) {
      slug.push_back(c);
    } else if (!is_allowed(byte) && !slug.empty() && slug.back() != '_') {
      slug.push_back('_');
    }
  }
  const size_t limit = std::min(max_length, kMaxPathNameLength);
  if (slug.size() > limit) slug.resize(limit);
  // Leading characters other than a letter or digit, and trailing separators, go.
  while (!slug.empty() && !is_alnum(static_cast<unsigned char>(slug.front()))) slug.erase(slug.begin());
  while (!slug.empty() && (slug.back() == '_' || slug.back() == '.' || slug.back() == '-')) slug.pop_back();
  return slug.empty() ? "x" : slug;
}

void check_path_name(std::string_view name, std::string_view what) {
  if (const auto problem = path_name_problem(name)) {
    throw std::invalid_argument(fmt::format("{} '{}' cannot be a file name: it {}; use {}", what, printable_name(name),
                                            *problem, path_name_rule()));
  }
}

}  // namespace capaboost
