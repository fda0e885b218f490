#include "models/task_model.h"

namespace capaboost {

std::string to_string(TaskHead::Kind kind) {
  switch (kind) {
    case TaskHead::Kind::kSequenceClassification: return "sequence classification";
    case TaskHead::Kind::kSpan: return "span (question answering)";
  }
  return "?";
}

}  // namespace capaboost
