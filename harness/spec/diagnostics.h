#pragma once
// Problems found in an experiment spec, collected so that all of them are reported at once.

#include <stdexcept>
#include <string>
#include <vector>

namespace capaboost::harness {

struct Diagnostic {
  std::string file;
  int line = 0;    ///< 1-based; 0 when unknown
  int column = 0;  ///< 1-based; 0 when unknown
  std::string message;

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

/// The closest candidate to `word` by edit distance, when close enough to be a likely typo
/// (distance ≤ max(1, |word| / 3)); empty otherwise.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

/// " (did you mean 'x'?)" or "" — ready to append to a message.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace capaboost::harness
