// Fuzzes a BERT tokenizer directory (tokenizers/wordpiece_files.h: vocab.txt, tokenizer_config.json and
// tokenizer.json) and the WordPiece tokenizer built from it (tokenizers/wordpiece_tokenizer.h: the
// special tokens' ids, then tokenize, encode with offsets and decode six texts). The input holds the
// three files separated by NUL bytes: vocab.txt, tokenizer_config.json, tokenizer.json; a file whose part
// is missing is absent, as both JSON files may be. Bad input must end in the reader's c10::Error; a
// crash, a sanitizer report or any other exception is a finding.

#include <c10/util/Exception.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string_view>

#include "fuzz_support.h"
#include "tokenizers/wordpiece_tokenizer.h"

namespace {

const std::string_view kTexts[] = {
    "Hello world, un-affable [MASK] here.[SEP]",
    "  spaces\tand\nnewlines  [cls] [CLS]",
    "Caf\xC3\xA9 na\xC3\xAFve \xE4\xB8\xAD\xE6\x96\x87 \xF0\x9F\x98\x80",  // Café naïve 中文 😀
    "i\xCC\x87 \xEF\xBC\xA1 don't",                                          // i̇ Ａ don't
    "",
    "bad \xFF\xC3 utf-8 \x01\x7F",  // last: the tokenizer refuses it, which ends the input's run
};

const char* const kFiles[] = {"vocab.txt", "tokenizer_config.json", "tokenizer.json"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const uint8_t* begin = data;
  const uint8_t* const end = data + size;
  std::filesystem::path directory;
  for (const char* file : kFiles) {
    const auto name = std::string("wordpiece/") + file;
    if (begin == nullptr) {  // an earlier part took the rest of the input: no such file
      std::error_code ignored;
      std::filesystem::remove(capaboost::fuzz::scratch_directory() / name, ignored);
      continue;
    }
    const uint8_t* separator = std::find(begin, end, uint8_t{0});
    directory = std::filesystem::path(
                    capaboost::fuzz::write_input(begin, static_cast<size_t>(separator - begin), name))
                    .parent_path();
    begin = separator == end ? nullptr : separator + 1;
  }
  try {
    const capaboost::WordPieceTokenizer tokenizer(directory.string());
    for (const auto text : kTexts) {
      tokenizer.tokenize(text);
      tokenizer.encode_text_with_offsets(text);
      const auto ids = tokenizer.encode_text(text);
      tokenizer.decode(ids);
      tokenizer.decode(tokenizer.add_special_tokens(ids, ids), /*skip_special_tokens=*/true);
    }
  } catch (const c10::Error&) {
  }
  return 0;
}
