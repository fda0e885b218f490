#include "data/data_root.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <optional>

#include "glue_test_support.h"

using namespace capaboost;
using capaboost::test::ScratchDir;

namespace {
// Sets $CAPABOOST_DATA_DIR for one scope and restores the previous value (other tests read it).
struct ScopedDataDir {
  std::optional<std::string> saved;
  explicit ScopedDataDir(const char* value) {
    if (const char* old = std::getenv(kDataDirEnv)) saved = old;
    if (value) {
      setenv(kDataDirEnv, value, 1);
    } else {
      unsetenv(kDataDirEnv);
    }
  }
  ~ScopedDataDir() {
    if (saved) {
      setenv(kDataDirEnv, saved->c_str(), 1);
    } else {
      unsetenv(kDataDirEnv);
    }
  }
};
}  // namespace

TEST_CASE("the data root is the spec's, else $CAPABOOST_DATA_DIR, else the default", "[data][data_root]") {
  {
    ScopedDataDir env("/from/env");
    const auto spec = resolve_data_root("/from/spec", "/default");
    CHECK(spec.path == "/from/spec");
    CHECK(spec.origin == "spec");
    const auto from_env = resolve_data_root("", "/default");
    CHECK(from_env.path == "/from/env");
    CHECK(from_env.origin == "$CAPABOOST_DATA_DIR");
  }
  {
    ScopedDataDir env("");
    CHECK(resolve_data_root("", "/default").origin == "default");
  }
  {
    ScopedDataDir env(nullptr);
    const auto fallback = resolve_data_root("", "/default");
    CHECK(fallback.path == "/default");
    CHECK(fallback.origin == "default");
  }
}

TEST_CASE("a missing task is one error naming task, path, origin and the download command",
          "[data][data_root]") {
  ScratchDir dir;
  const DataRoot root{dir.path, "$CAPABOOST_DATA_DIR"};
  const auto& mnli = glue_task("MNLI");
  CHECK_FALSE(glue_task_available(mnli, root));
  try {
    require_glue_files(mnli, root, {GlueFile::kTrain, GlueFile::kDev});
    FAIL("expected MissingDataError");
  } catch (const MissingDataError& error) {
    const std::string message = error.what();
    CHECK_THAT(message, Catch::Contains("GLUE task MNLI is not available: the folder " +
                                        (dir.path / "MNLI").string() + " does not exist") &&
                            Catch::Contains("from $CAPABOOST_DATA_DIR") &&
                            Catch::Contains("harness/scripts/fetch_glue.sh " + dir.path.string() + " MNLI") &&
                            Catch::Contains("MNLI/train.tsv and MNLI/dev_matched.tsv"));
  }
  // With the folder present, the message lists exactly the files that are missing.
  dir.write("MNLI/train.tsv", "x");
  CHECK_FALSE(glue_task_available(mnli, root));
  CHECK_THROWS_WITH(
      require_glue_files(mnli, root, {GlueFile::kTrain, GlueFile::kDev}),
      Catch::Contains("missing " + (dir.path / "MNLI" / "dev_matched.tsv").string() + " (data root"));
  dir.write("MNLI/dev_matched.tsv", "x");
  CHECK(glue_task_available(mnli, root));
  CHECK_NOTHROW(require_glue_files(mnli, root, {GlueFile::kTrain, GlueFile::kDev}));
}

TEST_CASE("the mirror lacks MNLI, QQP and QNLI and says how to get them", "[data][data_root]") {
  const auto root = test::mirror_root();
  if (!test::mirror_has("RTE")) {
    WARN("skipped: no GLUE mirror at " << root.path << " (set CAPABOOST_DATA_DIR)");
    return;
  }
  for (const char* name : {"MNLI", "QQP", "QNLI"}) {
    const auto& task = glue_task(name);
    if (glue_task_available(task, root)) continue;  // a fuller mirror is fine too
    CHECK_THROWS_AS(require_glue_files(task, root, {GlueFile::kTrain, GlueFile::kDev}), MissingDataError);
    CHECK_THROWS_WITH(require_glue_files(task, root, {GlueFile::kTrain, GlueFile::kDev}),
                      Catch::Contains(std::string("GLUE task ") + name) && Catch::Contains("fetch_glue.sh"));
  }
}
