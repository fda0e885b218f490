#include "pretrain/text_blocks.h"

#include <fstream>
#include <vector>

namespace capaboost {

TextBlocks encode_text_blocks(const Tokenizer& tokenizer, const std::string& path,
                              const TextBlockOptions& options) {
  TORCH_CHECK(options.block_size() >= 2, "TextBlockOptions: block_size must be at least 2, got ",
              options.block_size());
  std::ifstream in(path, std::ios::binary);
  TORCH_CHECK(in, "text blocks: cannot read '", path, "' (build the corpus first)");

  TextBlocks blocks;
  blocks.source_path = path;
  const int64_t wanted = options.max_blocks() > 0 ? options.max_blocks() * options.block_size() : -1;
  std::vector<int64_t> stream;
  std::string line;
  while ((wanted < 0 || static_cast<int64_t>(stream.size()) < wanted) && std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    const auto framed = tokenizer.add_special_tokens(tokenizer.encode_text(line), std::nullopt);
    stream.insert(stream.end(), framed.begin(), framed.end());
    ++blocks.lines;
  }
  blocks.tokens = static_cast<int64_t>(stream.size());
  int64_t count = blocks.tokens / options.block_size();
  if (options.max_blocks() > 0) count = std::min(count, options.max_blocks());
  TORCH_CHECK(count > 0, "text blocks: '", path, "' holds ", blocks.tokens, " tokens in ", blocks.lines,
              " lines, not enough for one block of ", options.block_size());
  stream.resize(static_cast<size_t>(count * options.block_size()));
  blocks.ids = torch::tensor(stream, torch::kInt64).reshape({count, options.block_size()});
  return blocks;
}

}  // namespace capaboost
