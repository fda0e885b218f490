#include "train/progress_bar.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

using namespace capaboost;
using Catch::Contains;

namespace {

std::string read_all(std::FILE* file) {
  std::rewind(file);
  std::string text;
  char buffer[512];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) text.append(buffer, n);
  return text;
}

}  // namespace

TEST_CASE("plain progress prints whole lines with statistics and a final line", "[train][progress]") {
  std::FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  ProgressBar bar(ProgressOptions(4).label("RTE").unit("tok").interactive(false).line_interval_seconds(1e9).stream(file));
  bar.advance(1, 100, {{"loss", 0.6931}});
  bar.advance(2, 100);
  bar.advance(1, 100, {{"loss", 0.5}});
  bar.finish();  // already final: must not print twice
  const std::string text = read_all(file);
  std::fclose(file);
  // With an interval longer than the run only the last step prints, once.
  CHECK(text.find('\r') == std::string::npos);
  CHECK(std::count(text.begin(), text.end(), '\n') == 1);
  CHECK_THAT(text, Contains("RTE 4/4 (100%) loss 0.5"));
  CHECK_THAT(text, Contains("tok/s"));
}

TEST_CASE("a terminal bar redraws in place and ends with a newline", "[train][progress]") {
  std::FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  ProgressBar bar(ProgressOptions(10).interactive(true).stream(file));
  bar.advance(10, 0);
  const std::string text = read_all(file);
  std::fclose(file);
  CHECK(text.front() == '\r');
  CHECK_THAT(text, Contains("[########################]"));
  CHECK(text.back() == '\n');
}

TEST_CASE("durations format as m:ss or h:mm:ss", "[train][progress]") {
  CHECK(format_duration(0) == "0:00");
  CHECK(format_duration(65.4) == "1:05");
  CHECK(format_duration(3723) == "1:02:03");
}
