// Fuzzes the SentencePiece model reader (tokenizers/sentencepiece_model.h: the protobuf, the pieces,
// the precompiled character map) and then uses the model as the tokenizers do: normalise, encode with
// and without offsets, decode, on texts with whitespace runs, accents, compatibility characters,
// control characters and malformed UTF-8. A model that carries [CLS] is also what load_tokenizer makes a
// DeBERTa-v2/v3 tokenizer of (tokenizers/deberta_v2_tokenizer.h, which reads no file besides spm.model):
// its special pieces' ids, the split around special tokens written in the text, encode with offsets and
// decode run too. Bad input must end in the reader's c10::Error; a crash, a sanitizer report or any other
// exception is a finding.

#include <c10/util/Exception.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "fuzz_support.h"
#include "tokenizers/deberta_v2_tokenizer.h"
#include "tokenizers/sentencepiece_model.h"

namespace {

const std::string_view kTexts[] = {
    "Hello world",
    "  leading,\ttabs\nand  runs of   spaces  ",
    "na\xC3\xAFve caf\xC3\xA9 \xEF\xBC\xA1\xE2\x91\xA0 \xC2\xBD \xE3\x82\xAB\xE3\x82\x99",  // naïve café Ａ①
                                                                                            // ½ カ゛
    "\xE2\x96\x81"
    "already metaspaced\x01\x7F",
    "bad \xFF\xC3 utf-8 \xE2\x96",
    "[CLS] a [MASK][SEP]b[PAD][UNK]",
    "",
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = capaboost::fuzz::write_input(data, size, "spm.model");
  std::shared_ptr<const capaboost::SentencePieceModel> model;
  try {
    model = std::make_shared<capaboost::SentencePieceModel>(path, "fuzz input");
  } catch (const c10::Error&) {
    return 0;
  }
  // Each text on its own: one the model refuses (malformed UTF-8) must not skip the others.
  for (const auto text : kTexts) {
    try {
      model->normalize(text);
      model->encode_with_spans(text);
      model->decode(model->encode(text));
    } catch (const c10::Error&) {
    }
  }
  if (!capaboost::DebertaV2Tokenizer::recognizes(*model)) return 0;
  std::unique_ptr<capaboost::DebertaV2Tokenizer> tokenizer;
  try {
    tokenizer = std::make_unique<capaboost::DebertaV2Tokenizer>(model);
  } catch (const c10::Error&) {
    return 0;
  }
  for (const auto text : kTexts) {
    try {
      tokenizer->encode_text_with_offsets(text);
      const auto ids = tokenizer->encode_text(text);
      tokenizer->decode(tokenizer->add_special_tokens(ids, ids));
      tokenizer->decode(ids, /*skip_special_tokens=*/true);
    } catch (const c10::Error&) {
    }
  }
  return 0;
}
