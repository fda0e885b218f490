#pragma once
// SmolLM2's chat template (ChatML with a default system message), rendered as transformers 4.47.1's
// tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=…) renders the Jinja
// template a GGUF file carries in tokenizer.chat_template:
//
//   <|im_start|>system\n{default system message}<|im_end|>\n      only when the first message is not "system"
//   <|im_start|>{role}\n{content}<|im_end|>\n                      per message
//   <|im_start|>assistant\n                                         with add_generation_prompt
//
// There is no Jinja engine here: the template text is recognised as SmolLM2's (its exact text, with any
// default system message), and any other template is refused with an error that shows where it differs.
// The rendered prompt is then encoded without BOS (add_special_tokens=False), as apply_chat_template does.
//
//   const ChatMlTemplate chat(gguf_chat_template);       // throws on a template it does not know
//   std::string prompt = chat.render({{"user", "Is this review positive?"}}, /*add_generation_prompt=*/true);

#include <string>
#include <string_view>
#include <vector>

namespace capaboost {

/// One turn of a conversation: role ("system", "user", "assistant", …) and its text.
struct ChatMessage {
  std::string role;
  std::string content;
};

class ChatMlTemplate {
 public:
  /// Recognises `jinja` (a tokenizer.chat_template); TORCH_CHECK-fails on any other template, naming the
  /// first character where it departs from SmolLM2's and what stands there.
  explicit ChatMlTemplate(std::string_view jinja);

  /// The prompt for `messages`, ending with the assistant's header when `add_generation_prompt`.
  std::string render(const std::vector<ChatMessage>& messages, bool add_generation_prompt) const;
  /// The system message the template adds when the conversation does not start with one.
  const std::string& default_system_message() const { return default_system_message_; }

 private:
  std::string default_system_message_;
};

}  // namespace capaboost
