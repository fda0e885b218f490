// Known statistics of the real GLUE files in the offline mirror. Row counts are the official GLUE
// release sizes; label balances were counted independently with awk over the same files (e.g.
// `awk -F'\t' '{c[$2]++} END {for (k in c) print k, c[k]}' CoLA/train.tsv`), and agree with the
// mirror's PROVENANCE notes and the well-known majority baselines (MRPC dev 279/408 = 68.4% positive,
// CoLA train 70.4% acceptable, SST-2 dev 444/872 positive).

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>

#include "data/glue_loader.h"
#include "glue_test_support.h"

using namespace capaboost;

namespace {

std::map<int64_t, int64_t> class_counts(const GlueFileData& data) {
  std::map<int64_t, int64_t> counts;
  for (const auto& example : data.examples) ++counts[example.class_id()];
  return counts;
}

// The mirror's own SHA256SUMS ("<digest>  ./<TASK>/<file>"), to check our digests against sha256sum's.
std::map<std::string, std::string> mirror_sums(const DataRoot& root) {
  std::map<std::string, std::string> sums;
  std::ifstream in(root.path / "SHA256SUMS");
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() > 68) sums[line.substr(68)] = line.substr(0, 64);  // 64 hex, 2 spaces, "./"
  }
  return sums;
}

}  // namespace

TEST_CASE("mirror CoLA: 8551/1043/1063 rows, 6023 + 2528 train, 721 + 322 dev", "[data][mirror]") {
  REQUIRE_MIRROR("CoLA");
  const auto& task = glue_task("CoLA");
  const auto root = test::mirror_root();
  const auto train = load_glue_file(task, root, GlueFile::kTrain);
  const auto dev = load_glue_file(task, root, GlueFile::kDev);
  const auto test = load_glue_file(task, root, GlueFile::kTest);
  CHECK(train.examples.size() == 8551);
  CHECK(dev.examples.size() == 1043);
  CHECK(test.examples.size() == 1063);
  CHECK(class_counts(train) == std::map<int64_t, int64_t>{{0, 2528}, {1, 6023}});
  CHECK(class_counts(dev) == std::map<int64_t, int64_t>{{0, 322}, {1, 721}});
  CHECK(train.examples[0].text_a ==
        "Our friends won't buy this analysis, let alone the next one we propose.");
  CHECK(train.examples[0].line == 1);
  // dev.tsv ends without a newline: the last row still counts.
  CHECK(dev.examples.back().text_a == "John talked to Bill about himself.");
  CHECK(dev.examples.back().line == 1043);
  CHECK(test.examples.back().text_a == "A picture of himself frightened John.");
  CHECK_FALSE(test.examples.back().has_label());
}

TEST_CASE("mirror SST-2: 67349/872/1821 rows, 29780 + 37569 train, 428 + 444 dev", "[data][mirror]") {
  REQUIRE_MIRROR("SST-2");
  const auto& task = glue_task("SST-2");
  const auto root = test::mirror_root();
  const auto train = load_glue_file(task, root, GlueFile::kTrain);
  const auto dev = load_glue_file(task, root, GlueFile::kDev);
  const auto test = load_glue_file(task, root, GlueFile::kTest);
  CHECK(train.examples.size() == 67349);
  CHECK(dev.examples.size() == 872);
  CHECK(test.examples.size() == 1821);
  CHECK(class_counts(train) == std::map<int64_t, int64_t>{{0, 29780}, {1, 37569}});
  CHECK(class_counts(dev) == std::map<int64_t, int64_t>{{0, 428}, {1, 444}});
  CHECK(train.examples[0].text_a == "hide new secretions from the parental units ");
  CHECK(train.examples[0].line == 2);
  CHECK(test.examples.back().text_a.rfind("dazzling and sugar-sweet , a blast", 0) == 0);
}

TEST_CASE("mirror MRPC: 3668/408/1725 rows, 2474 + 1194 train, 279 + 129 dev, quotes verbatim",
          "[data][mirror]") {
  REQUIRE_MIRROR("MRPC");
  const auto& task = glue_task("MRPC");
  const auto root = test::mirror_root();
  const auto train = load_glue_file(task, root, GlueFile::kTrain);
  const auto dev = load_glue_file(task, root, GlueFile::kDev);
  const auto test = load_glue_file(task, root, GlueFile::kTest);
  CHECK(train.examples.size() == 3668);
  CHECK(dev.examples.size() == 408);
  CHECK(test.examples.size() == 1725);
  CHECK(class_counts(train) == std::map<int64_t, int64_t>{{0, 1194}, {1, 2474}});
  CHECK(class_counts(dev) == std::map<int64_t, int64_t>{{0, 129}, {1, 279}});
  CHECK(
      train.examples[0].text_a ==
      "Amrozi accused his brother, whom he called \"the witness\", of deliberately distorting his evidence.");
  CHECK(*train.examples[0].text_b ==
        "Referring to him as only \"the witness\", Amrozi accused his brother of deliberately distorting his "
        "evidence.");
  // An opening quote with no closing one: a CSV reader would swallow the following rows.
  CHECK(*dev.examples[0].text_b ==
        "\"The foodservice pie business does not fit our long-term growth strategy.");
  CHECK(test.examples.back().text_a.rfind("Sobig.F spreads when unsuspecting computer users open file", 0) ==
        0);
}

TEST_CASE("mirror STS-B: 5749/1500/1379 rows, scores in [0, 5] summing as awk does", "[data][mirror]") {
  REQUIRE_MIRROR("STS-B");
  const auto& task = glue_task("STS-B");
  const auto root = test::mirror_root();
  const auto train = load_glue_file(task, root, GlueFile::kTrain);
  const auto dev = load_glue_file(task, root, GlueFile::kDev);
  const auto test = load_glue_file(task, root, GlueFile::kTest);
  CHECK(train.examples.size() == 5749);
  CHECK(dev.examples.size() == 1500);
  CHECK(test.examples.size() == 1379);
  const auto sum = [](const GlueFileData& data) {
    return std::accumulate(data.examples.begin(), data.examples.end(), 0.0,
                           [](double total, const Example& example) { return total + example.score(); });
  };
  CHECK(sum(train) == Approx(15528.043).margin(1e-6));  // awk: sum of column 10
  CHECK(sum(dev) == Approx(3545.861).margin(1e-6));
  CHECK(train.examples[0].text_a == "A plane is taking off.");
  CHECK(*train.examples[0].text_b == "An air plane is taking off.");
  CHECK(train.examples[0].score() == 5.0);
  CHECK(train.examples[1042].score() == 0.6);  // line 1044
  CHECK_FALSE(test.examples[0].has_label());
}

TEST_CASE("mirror RTE: 2490/277/3000 rows, 1249 + 1241 train, 146 + 131 dev", "[data][mirror]") {
  REQUIRE_MIRROR("RTE");
  const auto& task = glue_task("RTE");
  const auto root = test::mirror_root();
  const auto train = load_glue_file(task, root, GlueFile::kTrain);
  const auto dev = load_glue_file(task, root, GlueFile::kDev);
  const auto test = load_glue_file(task, root, GlueFile::kTest);
  CHECK(train.examples.size() == 2490);
  CHECK(dev.examples.size() == 277);
  CHECK(test.examples.size() == 3000);
  CHECK(class_counts(train) ==
        std::map<int64_t, int64_t>{{0, 1249}, {1, 1241}});  // entailment, not_entailment
  CHECK(class_counts(dev) == std::map<int64_t, int64_t>{{0, 146}, {1, 131}});
  CHECK(dev.examples[0].text_a.rfind("Dana Reeve, the widow of the actor Christopher Reeve", 0) == 0);
  CHECK(*dev.examples[0].text_b == "Christopher Reeve had an accident.");
  CHECK(dev.examples[0].class_id() == 1);
}

TEST_CASE("file digests equal the mirror's SHA256SUMS", "[data][mirror]") {
  REQUIRE_MIRROR("RTE");
  const auto root = test::mirror_root();
  const auto sums = mirror_sums(root);
  if (sums.empty()) {
    WARN("skipped: no SHA256SUMS in " << root.path);
    return;
  }
  int checked = 0;
  for (const char* name : {"CoLA", "MRPC", "RTE", "STS-B"}) {
    const auto& task = glue_task(name);
    for (GlueFile file : {GlueFile::kTrain, GlueFile::kDev, GlueFile::kTest}) {
      const std::string relative = task.folder + "/" + task.file_name(file);
      if (!sums.count(relative)) continue;
      CHECK(load_glue_file(task, root, file).sha256 == sums.at(relative));
      ++checked;
    }
  }
  CHECK(checked == 12);
}
