// ChatMlTemplate on SmolLM2's template text: what it renders, and the templates it refuses. Parity with
// transformers' apply_chat_template on the real file: llama_bpe_tokenizer_live_test.cpp.

#include "tokenizers/chatml_template.h"

#include <catch2/catch.hpp>

#include <string>

using namespace capaboost;

namespace {

// SmolLM2-135M-Instruct's tokenizer.chat_template, around a default system message.
std::string smollm2_template(const std::string& system_message) {
  return "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ "
         "'<|im_start|>system\n" +
         system_message +
         "<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + "
         "'<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";
}

const char* const kSmolLm2System = "You are a helpful AI assistant named SmolLM, trained by Hugging Face";

}  // namespace

TEST_CASE("ChatMlTemplate renders SmolLM2's template, adding its system message when none leads",
          "[llama_tokenizer][chat_template]") {
  const ChatMlTemplate chat(smollm2_template(kSmolLm2System));
  CHECK(chat.default_system_message() == kSmolLm2System);
  const std::string system = std::string("<|im_start|>system\n") + kSmolLm2System + "<|im_end|>\n";
  CHECK(chat.render({{"user", "Hi"}}, true) == system + "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
  CHECK(chat.render({{"user", "Hi"}, {"assistant", "Hello!"}}, false) ==
        system + "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n");
  // A leading system message replaces the default; a later one does not stop the default.
  CHECK(chat.render({{"system", "Be brief."}, {"user", "Hi"}}, false) ==
        "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n");
  CHECK(chat.render({{"user", "a"}, {"system", "b"}}, false) ==
        system + "<|im_start|>user\na<|im_end|>\n<|im_start|>system\nb<|im_end|>\n");
  CHECK(chat.render({}, true) == "<|im_start|>assistant\n");
  CHECK(chat.render({}, false).empty());
  // Another default system message is read from the template; an empty one is rendered empty.
  CHECK(ChatMlTemplate(smollm2_template("Answer in French.")).render({{"user", "x"}}, false) ==
        "<|im_start|>system\nAnswer in French.<|im_end|>\n<|im_start|>user\nx<|im_end|>\n");
  CHECK(ChatMlTemplate(smollm2_template("")).render({{"user", "x"}}, false) ==
        "<|im_start|>system\n<|im_end|>\n<|im_start|>user\nx<|im_end|>\n");
}

TEST_CASE("ChatMlTemplate refuses any other template, showing where it differs", "[llama_tokenizer][chat_template]") {
  // Llama 3's template starts differently.
  CHECK_THROWS_WITH(ChatMlTemplate("{{- bos_token }}{%- for message in messages %}"),
                    Catch::Contains("chat template not recognised") && Catch::Contains("at character 1") &&
                        Catch::Contains("found \"{- bos_token"));
  // One word changed after the system message: the generation prompt's role.
  std::string model_prompt = smollm2_template(kSmolLm2System);
  model_prompt.replace(model_prompt.rfind("assistant"), 9, "model");
  CHECK_THROWS_WITH(ChatMlTemplate(model_prompt), Catch::Contains("chat template not recognised") &&
                                                      Catch::Contains("found \"l\\n' }}{% endif %}\""));
  CHECK_THROWS_WITH(ChatMlTemplate(""), Catch::Contains("(0 characters) departs from it at character 0"));
  CHECK_THROWS_WITH(ChatMlTemplate(smollm2_template("It's me")),
                    Catch::Contains("default system message \"It's me\" holds a '"));
  CHECK_THROWS_WITH(ChatMlTemplate(smollm2_template("a\\nb")), Catch::Contains("holds a \\ at character 1"));
}
