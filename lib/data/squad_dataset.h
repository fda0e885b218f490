#pragma once
// SQuAD v1.1 and v2.0 question-answering files, in the two layouts they come in:
//   official, nested:  {"version": "1.1" | "v2.0", "data": [{"title", "paragraphs": [{"context", "qas":
//                       [{"id", "question", "answers": [{"text", "answer_start"}], "is_impossible",
//                       "plausible_answers"}]}]}]}
//   Hugging Face, flat: {"version", "data": [{"id", "title"?, "question", "context",
//                       "answers": {"text": [...], "answer_start": [...]}}]}
// Unanswerable questions (v2.0) have no answers. Malformed files fail with the file, the entry and
// what is wrong.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace capaboost {

struct SquadAnswer {
  std::string text;
  int64_t start = -1;  ///< answer_start: an offset into the context in code points, as Python counts
};

struct SquadQuestion {
  std::string id;
  std::string title;  ///< the article's (empty in a flat file without titles)
  std::string question;
  std::string context;
  std::vector<SquadAnswer> answers;            ///< empty: unanswerable (v2.0)
  std::vector<SquadAnswer> plausible_answers;  ///< v2.0: the distractors of an unanswerable question
};

struct SquadDataset {
  std::string source;   ///< the file it was read from
  std::string version;  ///< as the file states it ("1.1", "v2.0", "2.0"), empty when it has none
  /// 1 or 2: which official evaluation script scores it ("1…" is 1; "2…"/"v2…" is 2; without a version,
  /// 2 when a question is unanswerable, else 1).
  int major_version = 1;
  std::vector<SquadQuestion> questions;  ///< in file order; ids are unique
};

/// Reads a SQuAD file in either layout.
SquadDataset load_squad(const std::string& path);

/// The same from parsed JSON; `source` names it in errors.
SquadDataset parse_squad(const nlohmann::json& json, const std::string& source);

}  // namespace capaboost
