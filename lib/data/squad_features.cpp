#include "data/squad_features.h"

#include <algorithm>

#include "tokenizers/unicode_class.h"
#include "tokenizers/utf8.h"

namespace capaboost {
namespace {

// Python's str.lstrip(): run_qa strips the question's leading whitespace, which some SQuAD questions
// have and which would otherwise waste tokens.
std::string_view lstrip_python_space(std::string_view text) {
  size_t pos = 0;
  while (pos < text.size()) {
    const auto cp = decode_utf8_at(text, pos);
    if (!is_python_space(cp.cp)) break;
    pos += cp.length;
  }
  return text.substr(pos);
}

// Where the second sequence of a framed pair starts: found by framing placeholders (ids are never
// negative), so any tokenizer's framing works without the features knowing it.
int64_t second_sequence_start(const Tokenizer& tokenizer, const std::vector<int64_t>& question, int64_t window) {
  const auto framed = tokenizer.add_special_tokens(question, std::vector<int64_t>(static_cast<size_t>(window), -1));
  const auto it = std::find(framed.begin(), framed.end(), -1);
  TORCH_CHECK(window == 0 || it != framed.end(), "make_squad_features: the tokenizer's pair framing drops the second sequence");
  return it == framed.end() ? static_cast<int64_t>(framed.size()) : static_cast<int64_t>(it - framed.begin());
}

// run_qa's labels for one window, except at one edge: run_qa walks the start forward while a token
// begins at or before the answer and so runs past the window (into </s> and padding, whose offsets are
// (0, 0)) when the answer starts in the window's last token; the walk here stays inside the window.
void label_answer(SquadFeature& feature, const SquadQuestion& question, int64_t first, int64_t last) {
  if (question.answers.empty() || last < first) return;  // no answer (v2.0) or an empty window: CLS
  const SquadAnswer& answer = question.answers.front();
  const int64_t start_char = answer.start;
  const int64_t end_char = start_char + code_point_count(answer.text);
  const auto& offsets = feature.offsets;
  if (!(offsets[first].first <= start_char && offsets[last].second >= end_char)) return;  // not all in this window
  int64_t start = first;
  while (start <= last && offsets[start].first <= start_char) ++start;
  int64_t end = last;
  while (end >= first && offsets[end].second >= end_char) --end;
  feature.start_position = start - 1;
  feature.end_position = end + 1;
}

}  // namespace

std::vector<SquadFeature> make_squad_features(const std::vector<SquadQuestion>& questions, const Tokenizer& tokenizer,
                                              const SquadFeatureOptions& options) {
  TORCH_CHECK(options.doc_stride() >= 0 && options.max_length() > 0, "make_squad_features: max_length must be positive and doc_stride not negative");
  std::vector<SquadFeature> features;
  features.reserve(questions.size() * 2);
  // Questions of one paragraph follow each other: its context is tokenized once.
  const std::string* tokenized_context = nullptr;
  std::vector<TokenOffsets> context_tokens;
  const int64_t framing = tokenizer.num_special_tokens(/*pair=*/true);
  for (size_t q = 0; q < questions.size(); ++q) {
    const SquadQuestion& question = questions[q];
    if (tokenized_context == nullptr || *tokenized_context != question.context) {
      context_tokens = tokenizer.encode_text_with_offsets(question.context);
      tokenized_context = &question.context;
    }
    for (const auto& answer : question.answers) {
      TORCH_CHECK(answer.start >= 0 && answer.start + code_point_count(answer.text) <= code_point_count(question.context),
                  "SQuAD question ", question.id, ": its answer \"", answer.text, "\" at character ", answer.start,
                  " lies outside its context");
    }
    const auto question_ids = tokenizer.encode_text(lstrip_python_space(question.question));
    const int64_t window = options.max_length() - static_cast<int64_t>(question_ids.size()) - framing;
    TORCH_CHECK(window > options.doc_stride(), "SQuAD question ", question.id, ": its ", question_ids.size(),
                " tokens leave ", window, " of max_length ", options.max_length(),
                " for the context, not more than doc_stride ", options.doc_stride(),
                "; raise max_length or lower doc_stride");
    const auto n = static_cast<int64_t>(context_tokens.size());
    // Windows as the tokenizers library overflows a pair truncated "only_second": starts 0, w − stride,
    // 2(w − stride), …, until one reaches the end of the context.
    for (int64_t begin = 0;; begin += window - options.doc_stride()) {
      const int64_t end = std::min(begin + window, n);
      std::vector<int64_t> window_ids;
      for (int64_t t = begin; t < end; ++t) window_ids.push_back(context_tokens[t].id);
      SquadFeature feature;
      feature.question = static_cast<int64_t>(q);
      feature.input_ids = tokenizer.add_special_tokens(question_ids, window_ids);
      feature.first_segment = tokenizer.first_segment_length(static_cast<int64_t>(question_ids.size()));
      feature.offsets.assign(feature.input_ids.size(), CharSpan{-1, -1});
      const int64_t first = second_sequence_start(tokenizer, question_ids, end - begin);
      for (int64_t t = begin; t < end; ++t) {
        feature.offsets[first + t - begin] = {context_tokens[t].begin, context_tokens[t].end};
      }
      label_answer(feature, question, first, first + (end - begin) - 1);
      features.push_back(std::move(feature));
      if (end >= n) break;
    }
  }
  return features;
}

}  // namespace capaboost
