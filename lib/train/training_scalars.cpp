#include "train/training_scalars.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "util/atomic_file.h"

namespace capaboost {

namespace {

constexpr const char* kHeader = "step,seconds,tag,value";

// Tags become TensorBoard tags and MLflow metric names (file names in its file store), so they keep to a
// character set both accept and that needs no quoting in CSV.
bool valid_tag(const std::string& tag) {
  if (tag.empty() || tag.size() > 200 || tag.front() == '/' || tag.back() == '/') return false;
  for (const char c : tag) {
    const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                         c == '.' || c == '/' || c == '-';
    if (!allowed) return false;
  }
  return tag.find("..") == std::string::npos && tag.find("//") == std::string::npos;
}

[[noreturn]] void fail(const std::string& path, size_t line, const std::string& what) {
  throw std::runtime_error(fmt::format("{}:{}: {}; the file is damaged: restore it with its record (records.tar.xz "
                                       "of the curated folder) or re-run the run",
                                       path, line, what));
}

}  // namespace

void write_scalars_csv(const std::string& path, const std::vector<ScalarPoint>& points) {
  std::string text = std::string(kHeader) + "\n";
  text.reserve(points.size() * 32);
  for (const ScalarPoint& point : points) {
    if (!valid_tag(point.tag)) {
      throw std::invalid_argument(fmt::format("write_scalars_csv: '{}' is not a scalar tag (letters, digits, _ . / -)",
                                              point.tag));
    }
    // NaN and infinities print as nan/inf, which read_scalars_csv reads back.
    text += fmt::format("{},{:.3f},{},{:.9g}\n", point.step, point.seconds, point.tag, point.value);
  }
  write_file_atomically(path, text);
}

std::vector<ScalarPoint> read_scalars_csv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open the run's scalars file ({})", path, std::strerror(errno)));
  std::string line;
  if (!std::getline(in, line) || line != kHeader) fail(path, 1, fmt::format("expected the header '{}'", kHeader));
  std::vector<ScalarPoint> points;
  size_t number = 1;
  bool ended_with_newline = true;
  while (std::getline(in, line)) {
    ++number;
    ended_with_newline = !in.eof();
    std::vector<std::string> fields;
    for (size_t begin = 0;;) {
      const size_t comma = line.find(',', begin);
      fields.push_back(line.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
      if (comma == std::string::npos) break;
      begin = comma + 1;
    }
    if (fields.size() != 4) fail(path, number, "expected step,seconds,tag,value");
    ScalarPoint point;
    char* end = nullptr;
    errno = 0;
    point.step = std::strtoll(fields[0].c_str(), &end, 10);
    if (fields[0].empty() || *end != '\0' || errno != 0 || point.step < 0) {
      fail(path, number, fmt::format("'{}' is not a step", fields[0]));
    }
    point.seconds = std::strtod(fields[1].c_str(), &end);
    if (fields[1].empty() || *end != '\0' || !(point.seconds >= 0)) fail(path, number, fmt::format("'{}' is not a time", fields[1]));
    point.tag = fields[2];
    if (!valid_tag(point.tag)) fail(path, number, fmt::format("'{}' is not a scalar tag", point.tag));
    point.value = std::strtod(fields[3].c_str(), &end);
    if (fields[3].empty() || *end != '\0') fail(path, number, fmt::format("'{}' is not a number", fields[3]));
    points.push_back(std::move(point));
  }
  // write_scalars_csv ends every line: a last line without its newline is a file cut short.
  if (!ended_with_newline) fail(path, number, "the last line is cut short (the file is truncated)");
  return points;
}

}  // namespace capaboost
