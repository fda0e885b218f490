#include "data/tsv_reader.h"

#include <torch/torch.h>

#include <fstream>
#include <sstream>

#include "util/sha256.h"

namespace capaboost {

TsvReader::TsvReader(std::filesystem::path path) : path_(std::move(path)) {
  std::ifstream in(path_, std::ios::binary);
  TORCH_CHECK(in.good(), "cannot open ", path_.string(),
              " for reading; check that it exists and is readable");
  std::ostringstream contents;
  contents << in.rdbuf();
  bytes_ = std::move(contents).str();
  TORCH_CHECK(!bytes_.empty(), path_.string(),
              ": the file is empty (an interrupted download?); fetch the task again with "
              "harness/scripts/fetch_glue.sh");
  sha256_ = sha256_hex(bytes_);
  // MRPC's train/dev start with a UTF-8 BOM, which would otherwise glue itself to the first column name.
  static constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (std::string_view(bytes_).substr(0, kBom.size()) == kBom) position_ = kBom.size();
}

bool TsvReader::next(std::vector<std::string_view>& fields) {
  if (position_ >= bytes_.size()) return false;
  const std::string_view text(bytes_);
  size_t end = text.find('\n', position_);
  if (end == std::string_view::npos) end = text.size();  // last line without '\n'
  std::string_view line = text.substr(position_, end - position_);
  position_ = end + 1;
  ++line_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  fields.clear();
  size_t start = 0;
  while (true) {
    const size_t tab = line.find('\t', start);
    if (tab == std::string_view::npos) {
      fields.push_back(line.substr(start));
      break;
    }
    fields.push_back(line.substr(start, tab - start));
    start = tab + 1;
  }
  return true;
}

std::string TsvReader::where() const { return path_.string() + ":" + std::to_string(line_); }

}  // namespace capaboost
