#include "tokenizers/chatml_template.h"

#include <torch/torch.h>

#include <algorithm>

namespace capaboost {

namespace {

// SmolLM2's template (HuggingFaceTB/SmolLM2-*-Instruct, as its GGUF files carry it) around its default
// system message; the "\n" are newline characters of the template, inside Jinja string literals.
constexpr std::string_view kBeforeSystemMessage =
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\n";
constexpr std::string_view kAfterSystemMessage =
    "<|im_end|>\n' }}{% endif %}"
    "{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";

constexpr std::size_t kExcerpt = 48;

// `text` from `begin`, at most kExcerpt characters, newlines shown as \n.
std::string excerpt(std::string_view text, std::size_t begin) {
  std::string out;
  for (std::size_t i = begin; i < text.size() && i < begin + kExcerpt; ++i) {
    if (text[i] == '\n') {
      out += "\\n";
    } else {
      out += text[i];
    }
  }
  if (begin + kExcerpt < text.size()) out += "…";
  return out;
}

// Why `jinja` is refused: it departs from SmolLM2's template at character `at`, where `expected` (a part
// of SmolLM2's) has character `expected_at`.
std::string refusal(std::string_view jinja, std::size_t at, std::string_view expected, std::size_t expected_at) {
  return "chat template not recognised: only SmolLM2's ChatML template (a default system message, then "
         "<|im_start|>{role}\\n{content}<|im_end|>\\n per message) is rendered here, without a Jinja engine; "
         "this one (" + std::to_string(jinja.size()) + " characters) departs from it at character " +
         std::to_string(at) + ": found \"" + excerpt(jinja, at) + "\" where SmolLM2's has \"" +
         excerpt(expected, expected_at) + "\"";
}

}  // namespace

ChatMlTemplate::ChatMlTemplate(std::string_view jinja) {
  const auto prefix_end = static_cast<std::size_t>(
      std::mismatch(kBeforeSystemMessage.begin(), kBeforeSystemMessage.end(), jinja.begin(), jinja.end()).first -
      kBeforeSystemMessage.begin());
  TORCH_CHECK(prefix_end == kBeforeSystemMessage.size(), refusal(jinja, prefix_end, kBeforeSystemMessage, prefix_end));
  const std::string_view rest = jinja.substr(kBeforeSystemMessage.size());
  const auto suffix_matched = static_cast<std::size_t>(
      std::mismatch(kAfterSystemMessage.rbegin(), kAfterSystemMessage.rend(), rest.rbegin(), rest.rend()).first -
      kAfterSystemMessage.rbegin());
  // Where the end differs, counted from the end: show both from the last character that differs.
  TORCH_CHECK(suffix_matched == kAfterSystemMessage.size(),
              refusal(jinja, jinja.size() - suffix_matched - 1, kAfterSystemMessage,
                      kAfterSystemMessage.size() - suffix_matched - 1));
  default_system_message_ = std::string(rest.substr(0, rest.size() - kAfterSystemMessage.size()));
  const std::size_t quote = default_system_message_.find_first_of("'\\");
  TORCH_CHECK(quote == std::string::npos, "chat template not recognised: its default system message \"",
              default_system_message_, "\" holds a ", default_system_message_[quote],
              " at character ", quote,
              ", which Jinja would read as the end of the string or an escape; only plain text is rendered here");
}

std::string ChatMlTemplate::render(const std::vector<ChatMessage>& messages, bool add_generation_prompt) const {
  std::string prompt;
  if (!messages.empty() && messages.front().role != "system") {
    prompt += "<|im_start|>system\n" + default_system_message_ + "<|im_end|>\n";
  }
  for (const ChatMessage& message : messages) {
    prompt += "<|im_start|>" + message.role + "\n" + message.content + "<|im_end|>\n";
  }
  if (add_generation_prompt) prompt += "<|im_start|>assistant\n";
  return prompt;
}

}  // namespace capaboost
