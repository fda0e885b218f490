#pragma once
// Problems found in an experiment spec, collected so that all of them are reported at once, each at
// the file, line and column it comes from.

#include <stdexcept>
#include <string>
#include <vector>

namespace capaboost::harness {

/// Where in which file a spec says something (1-based; 0 when unknown).
struct SourceMark {
  std::string file;
  int line = 0;
  int column = 0;
};

struct Diagnostic {
  std::string file;
  int line = 0;    ///< 1-based; 0 when unknown
  int column = 0;  ///< 1-based; 0 when unknown
  std::string message;

  static Diagnostic at(const SourceMark& mark, std::string message);
  /// "file:line:column: error: message"
  std::string format() const;
};

/// Every problem of one spec; what() lists them one per line.
class SpecError : public std::runtime_error {
 public:
  explicit SpecError(std::vector<Diagnostic> diagnostics);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

/// Drops repeated diagnostics (many runs share one mistake) and orders the rest by file, line and
/// column, keeping the order of those at one place.
std::vector<Diagnostic> tidy(std::vector<Diagnostic> diagnostics);

}  // namespace capaboost::harness
