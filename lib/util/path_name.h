#pragma once
// The one rule for names the suite turns into a file or folder name (a spec's name, a profile, a
// report.split value, a figure or template name, a run key): a name that satisfies it is one path
// component, so joining it under a folder the user named can never leave that folder.
//
//   check_path_name(spec.name, "spec name");   // throws: "spec name '../x': starts with '.' …"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace capaboost {

/// Longest name accepted: file systems allow 255 bytes per component, and the suite appends suffixes.
inline constexpr size_t kMaxPathNameLength = 128;

/// The rule in words, for messages: "1–128 characters from A–Z a–z 0–9 . _ - =, starting with a
/// letter or digit".
std::string path_name_rule();

/// Why `name` breaks the rule ("is empty", "contains '/'", "starts with '.'", "contains '..'", "is 300
/// characters long", "contains the control character 0x0a"), or nullopt when it is a safe name.
std::optional<std::string> path_name_problem(std::string_view name);

/// Throws std::invalid_argument "<what> '<name>' cannot be a file name: <problem>; use <rule>" when
/// `name` breaks the rule. The name is shown with control characters escaped.
void check_path_name(std::string_view name, std::string_view what);

/// `text` made into a name that satisfies the rule, for folders named after free text (a row label such as
/// "CapaBoost-LoRA (d=2)" becomes "CapaBoost-LoRA_d=2"): every run of other characters becomes one '_',
/// leading and trailing ones go, '..' becomes '.', and the result is cut to `max_length` (at most
/// kMaxPathNameLength); text with nothing left gives "x".
std::string path_name_slug(std::string_view text, size_t max_length = 64);

/// `name` with control and non-ASCII bytes as \xNN, for error messages.
std::string printable_name(std::string_view name);

}  // namespace capaboost
