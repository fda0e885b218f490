#include "data/glue_loader.h"

#include <torch/torch.h>

#include <charconv>
#include <cmath>

#include "data/tsv_reader.h"

namespace capaboost {
namespace {

std::string join(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

// Appended to every message about a malformed file: a user's copy is almost always a bad download or
// a file saved through a CSV tool that re-quoted or re-split it.
std::string fix_hint(const TaskInfo& task) {
  return " Fix: use the unmodified GLUE release file (harness/scripts/fetch_glue.sh <data root> " +
         task.folder + " downloads it) or repair this line; GLUE TSVs are tab-separated with no quoting.";
}

// Column positions of the fields the loader needs, found by header name.
struct Layout {
  size_t columns = 0;
  std::vector<std::string> names;
  size_t text_a = 0, text_b = 0, label = 0;
};

size_t column_index(const TaskInfo& task, const Layout& layout, const std::string& name,
                    const TsvReader& reader) {
  for (size_t i = 0; i < layout.names.size(); ++i) {
    if (layout.names[i] == name) return i;
  }
  TORCH_CHECK(false, reader.where(), ": the header has no column '", name, "' (found: ", join(layout.names),
              "); this is not a GLUE ", task.name, " file.", fix_hint(task));
}

Layout read_layout(const TaskInfo& task, TsvReader& reader, bool labeled,
                   std::vector<std::string_view>& fields) {
  Layout layout;
  const bool has_header = !labeled || task.headerless_columns.empty();
  if (has_header) {
    TORCH_CHECK(reader.next(fields), reader.path().string(), ": the file has no header row (it is empty).",
                fix_hint(task));
    for (auto field : fields) layout.names.emplace_back(field);
  } else {
    layout.names = task.headerless_columns;
  }
  layout.columns = layout.names.size();
  layout.text_a = column_index(task, layout, task.text_a_column, reader);
  if (task.is_pair()) layout.text_b = column_index(task, layout, task.text_b_column, reader);
  if (labeled) layout.label = column_index(task, layout, task.label_column, reader);
  return layout;
}

Label parse_label(const TaskInfo& task, std::string_view token, const TsvReader& reader) {
  if (task.regression) {
    double score = 0.0;
    const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), score);
    TORCH_CHECK(error == std::errc() && end == token.data() + token.size() && std::isfinite(score) &&
                    score >= 0.0 && score <= 5.0,
                reader.where(), ": the ", task.name, " score '", std::string(token), "' in column '",
                task.label_column, "' is not a number in [0, 5].", fix_hint(task));
    return score;
  }
  for (size_t i = 0; i < task.label_tokens.size(); ++i) {
    if (token == task.label_tokens[i]) return static_cast<int64_t>(i);
  }
  TORCH_CHECK(false, reader.where(), ": the ", task.name, " label '", std::string(token), "' in column '",
              task.label_column, "' is not one of ", join(task.label_tokens), " (classes ",
              join(task.label_names), ").", fix_hint(task));
}

}  // namespace

GlueFileData load_glue_tsv(const TaskInfo& task, const std::filesystem::path& path, bool labeled) {
  TsvReader reader(path);
  std::vector<std::string_view> fields;
  const Layout layout = read_layout(task, reader, labeled, fields);

  GlueFileData data;
  data.path = path;
  data.sha256 = reader.sha256();
  while (reader.next(fields)) {
    TORCH_CHECK(fields.size() == layout.columns, reader.where(), ": expected ", layout.columns,
                " tab-separated columns (", join(layout.names), ") but found ", fields.size(),
                fields.size() < layout.columns ? "; the row is truncated or a field is missing."
                                               : "; a field contains a stray tab.",
                fix_hint(task));
    Example example;
    example.text_a = std::string(fields[layout.text_a]);
    if (task.is_pair()) example.text_b = std::string(fields[layout.text_b]);
    if (labeled) example.label = parse_label(task, fields[layout.label], reader);
    example.line = reader.line();
    data.examples.push_back(std::move(example));
  }
  TORCH_CHECK(!data.examples.empty(), path.string(), ": the file has no examples (at most a header row).",
              fix_hint(task));
  return data;
}

GlueFileData load_glue_file(const TaskInfo& task, const DataRoot& root, GlueFile file) {
  require_glue_files(task, root, {file});
  const bool labeled = file == GlueFile::kTrain || file == GlueFile::kDev || file == GlueFile::kDevMismatched;
  return load_glue_tsv(task, glue_file_path(task, root, file), labeled);
}

}  // namespace capaboost
