// Which build a record belongs to, for every row of store/record_build.h's table: a fingerprint on a
// device, an old clean commit on one machine's kernels, an old dirty sweep, an old dirty run alone.

#include "store/record_build.h"

#include <catch2/catch.hpp>

using namespace capaboost::harness;

namespace {

RunRecord record_with(const std::string& key, nlohmann::json provenance) {
  RunRecord record;
  record.key = key;
  record.provenance = std::move(provenance);
  return record;
}

nlohmann::json old_provenance(const std::string& sha, bool dirty, const std::string& kernel) {
  return {{"git_sha", sha},         {"git_dirty", dirty},       {"blas_kernel", kernel}, {"cpu_bf16", ""},
          {"device", "cpu"},        {"libtorch", "1.13.0"},     {"compiler", "GNU 12.2.0"}};
}

}  // namespace

TEST_CASE("fingerprinted records: one class per fingerprint and device", "[harness][store]") {
  nlohmann::json provenance = old_provenance("3baf49b000", true, "Cooperlake");
  provenance["numerics"] = {{"fingerprint", "aaaa1111bbbb2222"}, {"probes", nlohmann::json::object()}};
  const auto a = record_build(record_with("k1", provenance));
  // Another commit, clean, same numerics: one build as far as the arithmetic goes.
  provenance["git_sha"] = "dc83442000";
  provenance["git_dirty"] = false;
  const auto b = record_build(record_with("k2", provenance));
  CHECK(a.fingerprinted);
  CHECK(a.id == b.id);
  CHECK(a.id == current_build_id("aaaa1111bbbb2222", "cpu"));
  CHECK(a.label == "numerics aaaa1111 on cpu");
  provenance["device"] = "cuda:0";
  CHECK(record_build(record_with("k3", provenance)).id != a.id);
  provenance["numerics"]["fingerprint"] = "cccc";
  provenance["device"] = "cpu";
  CHECK(record_build(record_with("k4", provenance)).id != a.id);
}

TEST_CASE("old records: clean commits by machine, dirty ones by sweep or alone", "[harness][store]") {
  const auto clean = record_build(record_with("k1", old_provenance("dc83442000", false, "Cooperlake")));
  CHECK_FALSE(clean.fingerprinted);
  CHECK(clean.label == "dc83442 clean on Cooperlake");
  CHECK(record_build(record_with("k2", old_provenance("dc83442000", false, "Cooperlake"))).id == clean.id);
  CHECK(record_build(record_with("k3", old_provenance("dc83442000", false, "SkylakeX"))).id != clean.id);
  CHECK(record_build(record_with("k4", old_provenance("3b93580000", false, "Cooperlake"))).id != clean.id);

  auto in_sweep = old_provenance("3b93580000", true, "SkylakeX");
  in_sweep["sweep"] = "25900:1795933509334880890";
  const auto swept = record_build(record_with("k5", in_sweep));
  CHECK(record_build(record_with("k6", in_sweep)).id == swept.id);
  CHECK(swept.label == "3b93580 dirty, sweep 25900");
  CHECK_FALSE(swept.alone);

  const auto alone = record_build(record_with("0b5dca079335", old_provenance("3b93580000", true, "SkylakeX")));
  CHECK(alone.alone);
  CHECK(alone.label == "3b93580 dirty, run 0b5dca07");
  CHECK(record_build(record_with("da92ea7c0000", old_provenance("3b93580000", true, "SkylakeX"))).id != alone.id);
  // An old record and a fingerprinted one never share a build.
  auto fingerprinted = old_provenance("dc83442000", false, "Cooperlake");
  fingerprinted["numerics"] = {{"fingerprint", "aaaa"}};
  CHECK(record_build(record_with("k7", fingerprinted)).id != clean.id);
}
