#include "spec/diagnostics.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>

namespace capaboost::harness {
namespace {

std::string join_diagnostics(const std::vector<Diagnostic>& diagnostics) {
  std::string text;
  for (const auto& d : diagnostics) text += d.format() + "\n";
  if (!text.empty()) text.pop_back();
  return text;
}

}  // namespace

Diagnostic Diagnostic::at(const SourceMark& mark, std::string message) {
  return {mark.file, mark.line, mark.column, std::move(message)};
}

std::string Diagnostic::format() const {
  if (line <= 0) return fmt::format("{}: error: {}", file, message);
  return fmt::format("{}:{}:{}: error: {}", file, line, column, message);
}

SpecError::SpecError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(join_diagnostics(diagnostics)), diagnostics_(std::move(diagnostics)) {}

std::vector<Diagnostic> tidy(std::vector<Diagnostic> diagnostics) {
  std::vector<Diagnostic> unique;
  std::set<std::string> seen;
  for (auto& d : diagnostics) {
    if (seen.insert(d.format()).second) unique.push_back(std::move(d));
  }
  std::stable_sort(unique.begin(), unique.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.file, a.line, a.column) < std::tie(b.file, b.line, b.column);
  });
  return unique;
}

}  // namespace capaboost::harness
