#include "tokenizers/bpe_files.h"

#include <catch2/catch.hpp>

#include "lib/tokenizers/tiny_bpe_dir.h"

using namespace capaboost;
using capaboost::testing::TinyBpeDir;

TEST_CASE("read_bpe_files reads ids and merges in rank order", "[tokenizers][bpe_files]") {
  TinyBpeDir dir({{"a", "b"}, {"ab", "c"}});
  dir.write("merges.txt", "#version: 0.2\r\na b\r\n\r\nab c");  // CRLF, a blank line, no final newline
  const BpeFiles files = read_bpe_files(dir.path());
  REQUIRE(files.tokens.size() == 4 + 256 + 2 + 1);
  CHECK(files.tokens[0] == "<s>");
  CHECK(files.tokens[static_cast<std::size_t>(dir.id("abc"))] == "abc");
  REQUIRE(files.merges.size() == 2);
  CHECK(files.merges[0].left == "a");
  CHECK(files.merges[0].right == "b");
  CHECK(files.merges[1].left == "ab");
  CHECK(files.merges[1].line == 4);
}

TEST_CASE("read_bpe_files names the file and the fix for missing or corrupt files",
          "[tokenizers][bpe_files]") {
  TinyBpeDir dir;
  SECTION("missing directory") {
    CHECK_THROWS_WITH(
        read_bpe_files(dir.path() + "/nowhere"),
        Catch::Contains("nowhere/vocab.json") && Catch::Contains("must hold vocab.json and merges.txt"));
  }
  SECTION("missing merges.txt") {
    dir.remove("merges.txt");
    CHECK_THROWS_WITH(read_bpe_files(dir.path()),
                      Catch::Contains("cannot open") && Catch::Contains("merges.txt"));
  }
  SECTION("vocab.json is not JSON") {
    dir.write("vocab.json", "{\"<s>\": 0, \"a\": ");
    CHECK_THROWS_WITH(read_bpe_files(dir.path()), Catch::Contains("vocab.json is not valid JSON") &&
                                                      Catch::Contains("intact vocab.json"));
  }
  SECTION("vocab.json holds a number beyond double's range (found by make fuzz)") {
    dir.write("vocab.json", R"({"<s>": 0, "a": 1e400})");
    CHECK_THROWS_WITH(read_bpe_files(dir.path()),
                      Catch::Contains("vocab.json is not valid JSON") && Catch::Contains("1e400"));
  }
  SECTION("vocab.json is not an object") {
    dir.write("vocab.json", "[\"<s>\", \"a\"]");
    CHECK_THROWS_WITH(read_bpe_files(dir.path()), Catch::Contains("must be a non-empty JSON object"));
  }
  SECTION("an id is not an integer") {
    dir.write("vocab.json", R"({"<s>": 0, "a": "1"})");
    CHECK_THROWS_WITH(read_bpe_files(dir.path()),
                      Catch::Contains("token \"a\" maps to \"1\", expected an integer id"));
  }
  SECTION("ids leave a gap") {
    dir.write("vocab.json", R"({"<s>": 0, "a": 2})");
    CHECK_THROWS_WITH(read_bpe_files(dir.path()), Catch::Contains("has id 2 outside 0..1"));
  }
  SECTION("an id is used twice") {
    dir.write("vocab.json", R"({"<s>": 0, "a": 0})");
    CHECK_THROWS_WITH(read_bpe_files(dir.path()), Catch::Contains("id 0 is given to both"));
  }
  SECTION("a merge line has three fields") {
    dir.write("merges.txt", "#version: 0.2\nĠ t\nh e r\n");
    CHECK_THROWS_WITH(read_bpe_files(dir.path()),
                      Catch::Contains("merges.txt line 3") && Catch::Contains("got 3 fields in \"h e r\""));
  }
  SECTION("a merge line has one field") {
    dir.write("merges.txt", "#version: 0.2\nĠt\n");
    CHECK_THROWS_WITH(read_bpe_files(dir.path()),
                      Catch::Contains("merges.txt line 2") && Catch::Contains("got 1 fields"));
  }
}
