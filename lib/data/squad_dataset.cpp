#include "data/squad_dataset.h"

#include <torch/torch.h>

#include <fstream>
#include <set>

namespace capaboost {
namespace {

using nlohmann::json;

// A string member of `object`, or a failure naming where it is and what it should be.
std::string string_member(const json& object, const char* key, const std::string& where) {
  TORCH_CHECK(object.is_object() && object.contains(key) && object.at(key).is_string(), where, ": needs a string '",
              key, "'");
  return object.at(key).get<std::string>();
}

// An optional string member ("title"): "" when absent or null, a failure naming where it is otherwise.
std::string optional_string(const json& object, const char* key, const std::string& where) {
  if (!object.contains(key) || object.at(key).is_null()) return "";
  TORCH_CHECK(object.at(key).is_string(), where, ": '", key, "' must be a string, got ", object.at(key).dump());
  return object.at(key).get<std::string>();
}

int64_t start_value(const json& value, const std::string& where) {
  TORCH_CHECK(value.is_number_integer() && value.get<int64_t>() >= 0, where,
              ": answer_start must be a non-negative integer (a character offset into the context)");
  return value.get<int64_t>();
}

// The official layout's answer list: [{"text", "answer_start"}, …].
std::vector<SquadAnswer> nested_answers(const json& qa, const char* key, const std::string& where) {
  std::vector<SquadAnswer> answers;
  if (!qa.contains(key)) return answers;
  const json& list = qa.at(key);
  TORCH_CHECK(list.is_array(), where, ": '", key, "' must be a list of {text, answer_start}");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = where + "." + key + "[" + std::to_string(i) + "]";
    SquadAnswer answer{string_member(list[i], "text", at), -1};
    if (list[i].contains("answer_start")) answer.start = start_value(list[i].at("answer_start"), at);
    answers.push_back(answer);
  }
  return answers;
}

// Hugging Face's flat answers: {"text": [...], "answer_start": [...]} of equal lengths.
std::vector<SquadAnswer> flat_answers(const json& entry, const std::string& where) {
  TORCH_CHECK(entry.contains("answers") && entry.at("answers").is_object(), where,
              ": needs 'answers' as {\"text\": [...], \"answer_start\": [...]}");
  const json& answers = entry.at("answers");
  TORCH_CHECK(answers.contains("text") && answers.at("text").is_array(), where, ": answers.text must be a list");
  const json& texts = answers.at("text");
  const json starts = answers.value("answer_start", json::array());
  TORCH_CHECK(starts.is_array() && (starts.empty() || starts.size() == texts.size()), where,
              ": answers.answer_start must be a list as long as answers.text (", texts.size(), ")");
  std::vector<SquadAnswer> result;
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::string at = where + ".answers.text[" + std::to_string(i) + "]";
    TORCH_CHECK(texts[i].is_string(), at, ": must be a string");
    result.push_back({texts[i].get<std::string>(), starts.empty() ? -1 : start_value(starts[i], at)});
  }
  return result;
}

int major_of(const SquadDataset& dataset) {
  const std::string& v = dataset.version;
  if (!v.empty()) {
    const char first = v[0] == 'v' || v[0] == 'V' ? (v.size() > 1 ? v[1] : '\0') : v[0];
    TORCH_CHECK(first == '1' || first == '2', dataset.source, ": version '", v,
                "' is neither SQuAD 1.x nor 2.x; the official files say \"1.1\" or \"v2.0\"");
    return first - '0';
  }
  for (const auto& question : dataset.questions) {
    if (question.answers.empty()) return 2;
  }
  return 1;
}

}  // namespace

SquadDataset parse_squad(const json& root, const std::string& source) {
  SquadDataset dataset;
  dataset.source = source;
  TORCH_CHECK(root.is_object() && root.contains("data") && root.at("data").is_array(), source,
              ": not a SQuAD file: expected {\"version\": …, \"data\": [...]}");
  if (root.contains("version")) {
    const json& version = root.at("version");
    // The Hugging Face samples write the version as a number (2.0).
    dataset.version = version.is_string() ? version.get<std::string>() : version.dump();
  }
  const json& data = root.at("data");
  for (size_t a = 0; a < data.size(); ++a) {
    const json& entry = data[a];
    const std::string where = source + ": data[" + std::to_string(a) + "]";
    TORCH_CHECK(entry.is_object(), where, ": must be an object");
    if (entry.contains("paragraphs")) {  // official: an article
      const std::string title = optional_string(entry, "title", where);
      const json& paragraphs = entry.at("paragraphs");
      TORCH_CHECK(paragraphs.is_array(), where, ": 'paragraphs' must be a list");
      for (size_t p = 0; p < paragraphs.size(); ++p) {
        const std::string paragraph_at = where + ".paragraphs[" + std::to_string(p) + "]";
        const std::string context = string_member(paragraphs[p], "context", paragraph_at);
        TORCH_CHECK(paragraphs[p].contains("qas") && paragraphs[p].at("qas").is_array(), paragraph_at,
                    ": needs a list 'qas'");
        const json& qas = paragraphs[p].at("qas");
        for (size_t q = 0; q < qas.size(); ++q) {
          const std::string at = paragraph_at + ".qas[" + std::to_string(q) + "]";
          SquadQuestion question;
          question.id = string_member(qas[q], "id", at);
          question.title = title;
          question.question = string_member(qas[q], "question", at);
          question.context = context;
          question.answers = nested_answers(qas[q], "answers", at);
          question.plausible_answers = nested_answers(qas[q], "plausible_answers", at);
          const json impossible_value = qas[q].value("is_impossible", json(false));
          TORCH_CHECK(impossible_value.is_boolean(), at, ": 'is_impossible' must be true or false, got ",
                      impossible_value.dump());
          const bool impossible = impossible_value.get<bool>();
          TORCH_CHECK(!impossible || question.answers.empty(), at,
                      ": is_impossible is true but it has answers (v2.0 keeps those in plausible_answers)");
          dataset.questions.push_back(std::move(question));
        }
      }
    } else {  // flat: one question
      SquadQuestion question;
      question.id = string_member(entry, "id", where);
      question.title = optional_string(entry, "title", where);
      question.question = string_member(entry, "question", where);
      question.context = string_member(entry, "context", where);
      question.answers = flat_answers(entry, where);
      dataset.questions.push_back(std::move(question));
    }
  }
  std::set<std::string> ids;
  for (const auto& question : dataset.questions) {
    TORCH_CHECK(ids.insert(question.id).second, source, ": question id '", question.id,
                "' appears twice; the evaluation scores by id");
  }
  dataset.major_version = major_of(dataset);
  return dataset;
}

SquadDataset load_squad(const std::string& path) {
  std::ifstream in(path);
  TORCH_CHECK(in.good(), "cannot open the SQuAD file ", path,
              " (the official files: https://rajpurkar.github.io/SQuAD-explorer/)");
  json root;
  try {
    root = json::parse(in);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number like 1e400
    TORCH_CHECK(false, path, ": not valid JSON (", e.what(), "); a truncated download? fetch the file again");
  }
  return parse_squad(root, path);
}

}  // namespace capaboost
