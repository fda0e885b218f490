// Fuzzes a byte-level BPE tokenizer's files (tokenizers/bpe_files.h: vocab.json and merges.txt) and the
// tokenizer built from them (tokenizers/byte_level_bpe_tokenizer.h: the cross-file checks, then
// encoding with offsets and decoding). The input holds both files, vocab.json up to its first NUL byte
// (JSON text has none) and merges.txt after it. Bad input must end in the reader's c10::Error; a crash,
// a sanitizer report or any other exception is a finding.

#include <c10/util/Exception.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_support.h"
#include "tokenizers/byte_level_bpe_tokenizer.h"

namespace {

const std::string_view kTexts[] = {
    "Hello world, it's <mask> here.</s>",
    "  spaces\tand\nnewlines  ",
    "caf\xC3\xA9 \xF0\x9F\x98\x80 \xE4\xB8\xAD\xE6\x96\x87",  // café 😀 中文
    "bad \xFF\xC3 utf-8",
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const uint8_t* end = data + size;
  const uint8_t* separator = std::find(data, end, uint8_t{0});
  capaboost::fuzz::write_input(data, static_cast<size_t>(separator - data), "bpe/vocab.json");
  const uint8_t* merges = separator == end ? end : separator + 1;
  const auto directory =
      std::filesystem::path(
          capaboost::fuzz::write_input(merges, static_cast<size_t>(end - merges), "bpe/merges.txt"))
          .parent_path()
          .string();
  try {
    for (const bool add_prefix_space : {false, true}) {
      const capaboost::ByteLevelBpeTokenizer tokenizer(
          directory, capaboost::ByteLevelBpeOptions().add_prefix_space(add_prefix_space));
      for (const auto text : kTexts) {
        tokenizer.encode_text_with_offsets(text);
        tokenizer.decode(tokenizer.encode_text(text));
      }
    }
  } catch (const c10::Error&) {
  }
  return 0;
}
