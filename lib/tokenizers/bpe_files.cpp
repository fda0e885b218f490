#include "tokenizers/bpe_files.h"

#include <torch/torch.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace capaboost {

namespace {

std::string read_file(const std::string& path, const std::string& directory) {
  std::ifstream in(path, std::ios::binary);
  TORCH_CHECK(
      in.good(), "cannot open ", path, ": a byte-level BPE tokenizer directory (", directory,
      ") must hold vocab.json and merges.txt in the Hugging Face format (e.g. those of roberta-base)");
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

std::vector<std::string> read_vocab(const std::string& path, const std::string& directory) {
  nlohmann::json vocab;
  try {
    vocab = nlohmann::json::parse(read_file(path, directory));
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for a number like 1e400
    TORCH_CHECK(false, path, " is not valid JSON (", e.what(), "); replace it with an intact vocab.json");
  }
  TORCH_CHECK(vocab.is_object() && !vocab.empty(), path,
              " must be a non-empty JSON object {\"token\": id, ...}; replace it with an intact vocab.json");
  const auto size = static_cast<int64_t>(vocab.size());
  std::vector<std::string> tokens(static_cast<std::size_t>(size));
  std::vector<bool> seen(static_cast<std::size_t>(size), false);
  for (const auto& [token, value] : vocab.items()) {
    TORCH_CHECK(value.is_number_integer(), path, ": token \"", token, "\" maps to ", value.dump(),
                ", expected an integer id; replace it with an intact vocab.json");
    const auto id = value.get<int64_t>();
    TORCH_CHECK(id >= 0 && id < size, path, ": token \"", token, "\" has id ", id, " outside 0..", size - 1,
                "; ids must be exactly 0..N-1 for N tokens");
    TORCH_CHECK(!seen[static_cast<std::size_t>(id)], path, ": id ", id, " is given to both \"",
                tokens[static_cast<std::size_t>(id)], "\" and \"", token, "\"; ids must be unique");
    seen[static_cast<std::size_t>(id)] = true;
    tokens[static_cast<std::size_t>(id)] = token;
  }
  return tokens;
}

std::vector<BpeMerge> read_merges(const std::string& path, const std::string& directory) {
  std::istringstream in(read_file(path, directory));
  std::vector<BpeMerge> merges;
  std::string line;
  for (int64_t number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // HF drops the first line blindly and the last one when the file ends without a newline; skipping
    // the "#version" header and blank lines instead reads every well-formed file the same way.
    if (line.empty() || (number == 1 && line.rfind("#version", 0) == 0)) continue;
    std::istringstream fields(line);
    std::vector<std::string> parts;
    for (std::string part; fields >> part;) parts.push_back(part);
    TORCH_CHECK(parts.size() == 2, path, " line ", number,
                ": expected a merge \"left right\" (2 fields), got ", parts.size(), " fields in \"", line,
                "\"; replace it with an intact merges.txt");
    merges.push_back({parts[0], parts[1], number});
  }
  return merges;
}

}  // namespace

BpeFiles read_bpe_files(const std::string& directory) {
  BpeFiles files;
  files.tokens = read_vocab(directory + "/vocab.json", directory);
  files.merges = read_merges(directory + "/merges.txt", directory);
  return files;
}

}  // namespace capaboost
