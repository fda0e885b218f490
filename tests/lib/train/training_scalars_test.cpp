#include "train/training_scalars.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <limits>

#include "support/read_text.h"
#include "support/temp_dir.h"

using namespace capaboost;
using Catch::Contains;

TEST_CASE("scalars files round-trip every point, float32 values exactly", "[train][scalars]") {
  capaboost::testing::TempDir dir;
  const std::string path = dir.file("run.scalars.csv");
  const std::vector<ScalarPoint> points = {{1, "train/loss", 0.6931471805599453, 0.012},
                                           {1, "train/lr", 0.0, 0.012},
                                           {2, "eval/matthews_correlation", -0.125, 1.5},
                                           {2, "eval/loss", static_cast<double>(3.4028234e38f), 1.5},
                                           {2, "train/grad_norm", std::numeric_limits<double>::quiet_NaN(), 1.5}};
  write_scalars_csv(path, points);
  CHECK(capaboost::testing::read_text(path).rfind("step,seconds,tag,value\n1,0.012,train/loss,0.693147181\n", 0) == 0);
  const auto read = read_scalars_csv(path);
  REQUIRE(read.size() == points.size());
  for (size_t i = 0; i + 1 < points.size(); ++i) {
    CHECK(read[i].step == points[i].step);
    CHECK(read[i].tag == points[i].tag);
    CHECK(static_cast<float>(read[i].value) == static_cast<float>(points[i].value));
    CHECK(read[i].seconds == Approx(points[i].seconds));
  }
  CHECK(std::isnan(read.back().value));
}

TEST_CASE("a tag outside the character set is refused when written", "[train][scalars]") {
  capaboost::testing::TempDir dir;
  CHECK_THROWS_WITH(write_scalars_csv(dir.file("x.csv"), {{1, "eval/a,b", 0, 0}}), Contains("'eval/a,b' is not a scalar tag"));
  CHECK_THROWS_WITH(write_scalars_csv(dir.file("x.csv"), {{1, "../loss", 0, 0}}), Contains("not a scalar tag"));
}

TEST_CASE("a damaged scalars file is an error naming the file and line", "[train][scalars]") {
  capaboost::testing::TempDir dir;
  const std::string path = dir.file("run.scalars.csv");
  const auto damaged = [&](const std::string& text) {
    std::ofstream(path, std::ios::trunc) << text;
    return path;
  };
  CHECK_THROWS_WITH(read_scalars_csv(dir.file("missing.csv")), Contains("missing.csv: cannot open"));
  CHECK_THROWS_WITH(read_scalars_csv(damaged("")), Contains(path + ":1: expected the header"));
  CHECK_THROWS_WITH(read_scalars_csv(damaged("step,seconds,tag,value\n1,0.1,train/loss,0.5\n2,0.2,train/lo")),
                    Contains(path + ":3:"));
  CHECK_THROWS_WITH(read_scalars_csv(damaged("step,seconds,tag,value\n1,0.1,train/loss,0.5\n2,0.2,train/loss,0.4")),
                    Contains(path + ":3: the last line is cut short"));
  CHECK_THROWS_WITH(read_scalars_csv(damaged("step,seconds,tag,value\nx,0.1,train/loss,0.5\n")), Contains("'x' is not a step"));
  CHECK_THROWS_WITH(read_scalars_csv(damaged("step,seconds,tag,value\n1,0.1,train/loss,abc\n")), Contains("'abc' is not a number"));
  CHECK_THROWS_WITH(read_scalars_csv(damaged("step,seconds,tag,value\n1,-2,train/loss,1\n")), Contains("'-2' is not a time"));
}
