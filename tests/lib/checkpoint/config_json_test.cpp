#include "checkpoint/config_json.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "support/temp_dir.h"

using namespace capaboost;
using capaboost::testing::TempDir;
using Catch::Contains;

TEST_CASE("ConfigJson reads typed fields strictly and names the file and field", "[config]") {
  TempDir dir;
  const auto path = dir.file("config.json");
  std::ofstream(path) << R"({"hidden_size": 768, "eps": 1e-5, "ratio": 2, "act": "gelu", "flag": true,
                             "unset": null, "fractional": 768.5, "text_number": "768"})";
  const auto config = ConfigJson::load(path);
  CHECK(config.required<int64_t>("hidden_size") == 768);
  CHECK(config.required<double>("eps") == 1e-5);
  CHECK(config.required<double>("ratio") == 2.0);  // an integer is a fine number
  CHECK(config.required<std::string>("act") == "gelu");
  CHECK(config.required<bool>("flag"));
  CHECK_FALSE(config.has("unset"));
  CHECK(config.optional<int64_t>("unset", 7) == 7);
  CHECK(config.optional<int64_t>("absent", 9) == 9);
  CHECK_THROWS_WITH(config.required<int64_t>("absent"), Contains(path) && Contains("'absent' is missing"));
  CHECK_THROWS_WITH(config.required<int64_t>("fractional"),
                    Contains(path) && Contains("'fractional' must be an integer"));
  CHECK_THROWS_WITH(config.required<int64_t>("text_number"), Contains(path) && Contains("'text_number'"));
  CHECK_THROWS_WITH(config.required<std::string>("flag"), Contains("'flag' must be a string"));
}

TEST_CASE("ConfigJson rejects missing and malformed files", "[config]") {
  TempDir dir;
  CHECK_THROWS_WITH(ConfigJson::load(dir.file("none.json")),
                    Contains("none.json") && Contains("cannot open"));
  std::ofstream(dir.file("broken.json")) << R"({"a": )";
  CHECK_THROWS_WITH(ConfigJson::load(dir.file("broken.json")),
                    Contains("broken.json") && Contains("not valid JSON"));
  // Found by make fuzz: nlohmann's parser reports a number beyond double's range as out_of_range, not
  // parse_error, and it escaped the loader.
  std::ofstream(dir.file("huge.json")) << R"({"hidden_size": 1e400})";
  CHECK_THROWS_WITH(ConfigJson::load(dir.file("huge.json")),
                    Contains("huge.json") && Contains("not valid JSON") && Contains("1e400"));
  std::ofstream(dir.file("list.json")) << "[1]";
  CHECK_THROWS_WITH(ConfigJson::load(dir.file("list.json")),
                    Contains("list.json") && Contains("JSON object"));
}

TEST_CASE("save_config_json writes indented JSON atomically", "[config]") {
  TempDir dir;
  const auto path = dir.file("config.json");
  save_config_json(path, {{"b", 1}, {"a", "x"}});
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  CHECK(text == "{\n  \"a\": \"x\",\n  \"b\": 1\n}\n");
}
