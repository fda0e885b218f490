#pragma once
// One text example of a sentence or sentence-pair task, before tokenization.

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

namespace capaboost {

/// No label (unlabeled test files), a class index, or a regression score.
using Label = std::variant<std::monostate, int64_t, double>;

struct Example {
  std::string text_a;                 ///< first (or only) sentence, verbatim from the file
  std::optional<std::string> text_b;  ///< second sentence of a pair task
  Label label;
  int64_t line = 0;  ///< 1-based line in the source file (the header, if any, is line 1)

  bool has_label() const { return !std::holds_alternative<std::monostate>(label); }
  bool has_class() const { return std::holds_alternative<int64_t>(label); }
  bool has_score() const { return std::holds_alternative<double>(label); }
  /// The class index; throws std::bad_variant_access if the example has none.
  int64_t class_id() const { return std::get<int64_t>(label); }
  /// The regression score; throws std::bad_variant_access if the example has none.
  double score() const { return std::get<double>(label); }
};

}  // namespace capaboost
