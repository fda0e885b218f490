#include "pretrain/text_blocks.h"

#include <catch2/catch.hpp>

#include "lib/pretrain/pretrain_fixture.h"
#include "lib/tokenizers/tiny_bpe_dir.h"
#include "support/temp_dir.h"
#include "tokenizers/byte_level_bpe_tokenizer.h"

using namespace capaboost;
using namespace capaboost::testing;

TEST_CASE("Text blocks pack framed lines in file order and drop the tail", "[pretrain][blocks]") {
  TinyBpeDir bpe;
  const ByteLevelBpeTokenizer tokenizer(bpe.path());
  TempDir dir;
  const std::vector<std::string> lines = {"hello world", "", "the cat.", "   ", "aaa er"};
  write_lines(dir.file("text.txt"), lines);

  std::vector<int64_t> stream;
  for (const auto& line : {"hello world", "the cat.", "aaa er"}) {
    const auto framed = tokenizer.add_special_tokens(tokenizer.encode_text(line), std::nullopt);
    stream.insert(stream.end(), framed.begin(), framed.end());
  }
  const int64_t block = 5;
  const auto blocks =
      encode_text_blocks(tokenizer, dir.file("text.txt"), TextBlockOptions().block_size(block));
  CHECK(blocks.lines == 3);
  CHECK(blocks.tokens == static_cast<int64_t>(stream.size()));
  const int64_t count = static_cast<int64_t>(stream.size()) / block;
  REQUIRE(blocks.ids.sizes() == torch::IntArrayRef({count, block}));
  stream.resize(static_cast<size_t>(count * block));
  CHECK(torch::equal(blocks.ids.reshape({-1}), torch::tensor(stream, torch::kInt64)));
  CHECK(blocks.ids[0][0].item<int64_t>() == 0);  // <s> opens the first line

  const auto limited =
      encode_text_blocks(tokenizer, dir.file("text.txt"), TextBlockOptions().block_size(block).max_blocks(2));
  CHECK(torch::equal(limited.ids, blocks.ids.slice(0, 0, 2)));
}

TEST_CASE("Text blocks report unreadable and too short files", "[pretrain][blocks]") {
  TinyBpeDir bpe;
  const ByteLevelBpeTokenizer tokenizer(bpe.path());
  TempDir dir;
  CHECK_THROWS_WITH(encode_text_blocks(tokenizer, dir.file("missing.txt")), Catch::Contains("cannot read"));
  write_lines(dir.file("short.txt"), {"hi"});
  CHECK_THROWS_WITH(encode_text_blocks(tokenizer, dir.file("short.txt"), TextBlockOptions().block_size(64)),
                    Catch::Contains("not enough for one block"));
}
