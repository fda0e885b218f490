#include "tokenizers/tokenizer.h"

#include <catch2/catch.hpp>
#include <optional>
#include <vector>

#include "lib/tokenizers/tiny_bpe_dir.h"
#include "tokenizers/byte_level_bpe_tokenizer.h"

using namespace capaboost;
using capaboost::testing::TinyBpeDir;
using Ids = std::vector<int64_t>;

namespace {
torch::Tensor matrix(const Ids& values, int64_t rows) {
  return torch::tensor(values, torch::kInt64).view({rows, -1});
}
}  // namespace

TEST_CASE("longest_first truncation cuts a single text's tail at once", "[tokenizers][truncation]") {
  Ids a = {1, 2, 3, 4, 5};
  std::optional<Ids> none;
  truncate_longest_first(a, none, 2, 5);
  CHECK(a == Ids{1, 2, 3});
  truncate_longest_first(a, none, 2, 10);  // already fits
  CHECK(a == Ids{1, 2, 3});
  // transformers 4.30.2 leaves the text untouched (with a logged error) when it cannot shrink enough.
  CHECK_THROWS_WITH(truncate_longest_first(a, none, 2, 2), Catch::Contains("leave no room"));
  CHECK_THROWS_WITH(truncate_longest_first(a, none, 2, 0), Catch::Contains("max_length > 0"));
}

TEST_CASE("longest_first truncation of a pair sizes the two as the fast tokenizers do",
          "[tokenizers][truncation]") {
  {
    Ids a = {1, 2, 3};
    std::optional<Ids> b = Ids{4, 5, 6};
    truncate_longest_first(a, b, 4, 8);  // room 4: 2 and 2
    CHECK(a == Ids{1, 2});
    CHECK(*b == Ids{4, 5});
  }
  {
    Ids a = {1, 2, 3};
    std::optional<Ids> b = Ids{4, 5, 6};
    truncate_longest_first(a, b, 4, 9);  // room 5 on a tie: the first text ⌊5/2⌋, the pair ⌈5/2⌉
    CHECK(a == Ids{1, 2});
    CHECK(*b == Ids{4, 5, 6});
  }
  {
    Ids a = {1, 2, 3, 4, 5};
    std::optional<Ids> b = Ids{6, 7, 8, 9};
    truncate_longest_first(a, b, 4, 9);  // room 5, both over half: the shorter b ⌊5/2⌋, the longer a ⌈5/2⌉
    CHECK(a == Ids{1, 2, 3});
    CHECK(*b == Ids{6, 7});
  }
  {
    Ids a = {1, 2, 3, 4, 5, 6, 7};
    std::optional<Ids> b = Ids{8, 9};
    truncate_longest_first(a, b, 4, 9);  // 4 to remove, all from the longer a
    CHECK(a == Ids{1, 2, 3});
    CHECK(*b == Ids{8, 9});
  }
  {
    Ids a = {1, 2, 3, 4};
    std::optional<Ids> b = Ids{5, 6};
    truncate_longest_first(a, b, 4, 6);  // room 2, the shorter b over half: b 1, a 1
    CHECK(a == Ids{1});
    CHECK(*b == Ids{5});
  }
  {
    Ids a = {1};
    std::optional<Ids> b = Ids{2};
    truncate_longest_first(a, b, 4, 4);  // room for the special tokens only
    CHECK(a.empty());
    CHECK(b->empty());
    CHECK_THROWS_WITH(truncate_longest_first(a, b, 4, 3), Catch::Contains("special tokens alone exceed it"));
  }
}

TEST_CASE("encode frames single texts and pairs, with or without special tokens", "[tokenizers][encode]") {
  TinyBpeDir dir;
  ByteLevelBpeTokenizer tokenizer(dir.path());
  const int64_t hello = dir.id("hello"), world = dir.id("Ġworld"), the = dir.id("the");
  Encoding single = tokenizer.encode("hello world");
  CHECK(single.input_ids == Ids{0, hello, world, 2});
  CHECK(single.attention_mask == Ids{1, 1, 1, 1});
  CHECK(tokenizer.encode("hello", std::string_view("the")).input_ids == Ids{0, hello, 2, 2, the, 2});
  CHECK(tokenizer.encode("", std::string_view("")).input_ids == Ids{0, 2, 2, 2});
  const auto no_special = EncodeOptions().add_special_tokens(false);
  CHECK(tokenizer.encode("hello", std::string_view("the"), no_special).input_ids == Ids{hello, the});
  // Truncation counts the special tokens (4 for a pair) and, without them, does not.
  const auto trunc5 = EncodeOptions().truncation(true).max_length(5);
  CHECK(tokenizer.encode("hello world the", std::nullopt, trunc5).input_ids ==
        Ids{0, hello, world, dir.id("Ġthe"), 2});
  CHECK(tokenizer.encode("hello world the", std::string_view("the"), trunc5).input_ids ==
        Ids{0, hello, 2, 2, 2});
  CHECK(tokenizer.encode("hello world the", std::nullopt, EncodeOptions(trunc5).add_special_tokens(false))
            .input_ids == Ids{hello, world, dir.id("Ġthe")});
}

TEST_CASE("encode_batch pads to the longest row or to max_length", "[tokenizers][encode]") {
  TinyBpeDir dir;
  ByteLevelBpeTokenizer tokenizer(dir.path());
  const int64_t hello = dir.id("hello"), world = dir.id("Ġworld"), the = dir.id("the");
  const std::vector<std::string> texts = {"hello world", "the", ""};

  BatchEncoding longest = tokenizer.encode_batch(texts);
  CHECK(longest.input_ids.dtype() == torch::kInt64);
  CHECK(longest.attention_mask.dtype() == torch::kInt64);
  REQUIRE(longest.input_ids.sizes() == torch::IntArrayRef({3, 4}));
  CHECK(torch::equal(longest.input_ids, matrix({0, hello, world, 2, 0, the, 2, 1, 0, 2, 1, 1}, 3)));
  CHECK(torch::equal(longest.attention_mask, matrix({1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 0, 0}, 3)));

  const auto max6 = EncodeOptions().truncation(true).max_length(6);
  BatchEncoding pairs =
      tokenizer.encode_batch(texts, {"the", "hello world", "the"}, max6, Padding::kMaxLength);
  REQUIRE(pairs.input_ids.sizes() == torch::IntArrayRef({3, 6}));
  CHECK(torch::equal(pairs.input_ids, matrix({0, hello, 2, 2, the, 2,  // a loses " world" (the longer side)
                                              0, the, 2, 2, hello, 2,  // b loses " world" (the longer side)
                                              0, 2, 2, the, 2, 1},
                                             3)));
  CHECK(pairs.attention_mask.sum().item<int64_t>() == 17);

  CHECK_THROWS_WITH(
      tokenizer.encode_batch(texts, EncodeOptions().max_length(3), Padding::kMaxLength),
      Catch::Contains("more than max_length=3") && Catch::Contains("enable EncodeOptions::truncation"));
  CHECK_THROWS_WITH(tokenizer.encode_batch(texts, EncodeOptions(), Padding::kMaxLength),
                    Catch::Contains("max_length > 0"));
  CHECK_THROWS_WITH(tokenizer.encode_batch(texts, {"x"}), Catch::Contains("3 texts but 1 pairs"));
  CHECK(tokenizer.encode_batch({}).input_ids.sizes() == torch::IntArrayRef({0, 0}));
}
