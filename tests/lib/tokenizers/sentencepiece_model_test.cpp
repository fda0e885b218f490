#include "tokenizers/sentencepiece_model.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "support/temp_dir.h"

using namespace capaboost;
using capaboost::testing::TempDir;

namespace {

// The few protobuf encodings a ModelProto needs, to write models no trainer would.
std::string varint(uint64_t value) {
  std::string out;
  for (; value >= 0x80; value >>= 7) out += static_cast<char>((value & 0x7F) | 0x80);
  return out + static_cast<char>(value);
}

std::string length_delimited(uint32_t field, const std::string& bytes) {
  return varint(field << 3 | 2) + varint(bytes.size()) + bytes;
}

// ModelProto.pieces: SentencePiece {piece = 1, score = 2 (fixed32 float), type = 3}.
std::string piece(const std::string& text, float score, SentencePieceModel::PieceType type) {
  char score_bytes[4];
  std::memcpy(score_bytes, &score, 4);  // little-endian host, as the format
  return length_delimited(1, length_delimited(1, text) + varint(2 << 3 | 5) + std::string(score_bytes, 4) +
                                 varint(3 << 3) + varint(static_cast<uint64_t>(type)));
}

// A unigram model with identity normalisation holding `pieces`.
std::string identity_model(const std::vector<std::string>& pieces) {
  std::string model;
  for (const auto& p : pieces) model += p;
  return model + length_delimited(3, length_delimited(1, "identity"));
}

using Type = SentencePieceModel::PieceType;
constexpr float kInf = std::numeric_limits<float>::infinity();

}  // namespace

// Reproduced by make fuzz's sentencepiece target (a _GLIBCXX_ASSERTIONS abort): the unigram lattice took a position whose best score is
// -inf as unreached, so a model whose scores are -inf or NaN, or add up to -inf, left the end of the text
// unreached and the walk back from it indexed out of bounds.
TEST_CASE("SentencePiece unigram encoding survives scores that are -inf, NaN or sum to -inf",
          "[tokenizers][sentencepiece]") {
  TempDir dir;
  const auto load = [&](const std::string& bytes) {
    std::ofstream(dir.file("spm.model"), std::ios::binary | std::ios::trunc) << bytes;
    return std::make_unique<SentencePieceModel>(dir.file("spm.model"), "a fix");
  };
  const std::string unk = piece("<unk>", 0.0f, Type::kUnknown);

  SECTION("a piece and the unknown fallback scoring -inf") {
    const auto model = load(identity_model({unk, piece("\xE2\x96\x81", -kInf, Type::kNormal)}));
    CHECK(model->encode("x") == std::vector<int64_t>{1, 0});  // "▁", then "x" unknown
  }
  SECTION("a NaN score") {
    const auto model = load(identity_model({unk, piece("\xE2\x96\x81", std::nanf(""), Type::kNormal)}));
    CHECK(model->encode("x") == std::vector<int64_t>{1, 0});
  }
  SECTION("finite scores whose sum overflows to -inf") {
    const auto model = load(identity_model(
        {unk, piece("\xE2\x96\x81", -3e38f, Type::kNormal), piece("a", -3e38f, Type::kNormal)}));
    CHECK(model->encode("aa") == std::vector<int64_t>{1, 2, 2});
    CHECK(model->encode_with_spans("aa").size() == 3);
  }
}
