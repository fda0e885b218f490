#include "data/eval_protocol.h"

#include <catch2/catch.hpp>
#include <set>

#include "glue_test_support.h"

using namespace capaboost;
using capaboost::test::ScratchDir;

// Expected indices below are torch.randperm(n, generator=torch.Generator().manual_seed(42)) printed by
// PyTorch 1.13 in Python — the call the reference's ProPETL split makes — so the eval/test halves
// asserted here are the reference's. Line numbers: headered files start rows at line 2, CoLA at line 1.

namespace {

std::multiset<int64_t> lines(const std::vector<Example>& examples) {
  std::multiset<int64_t> result;
  for (const auto& example : examples) result.insert(example.line);
  return result;
}

std::multiset<int64_t> range(int64_t first, int64_t last) {
  std::multiset<int64_t> result;
  for (int64_t line = first; line <= last; ++line) result.insert(line);
  return result;
}

std::multiset<int64_t> merged(std::multiset<int64_t> a, const std::multiset<int64_t>& b) {
  a.insert(b.begin(), b.end());
  return a;
}

// A QNLI-layout data root with `rows` training and 3 dev rows.
void write_qnli(const ScratchDir& dir, int rows) {
  std::string train = "index\tquestion\tsentence\tlabel\n";
  for (int i = 0; i < rows; ++i) {
    train += std::to_string(i) + "\tq" + std::to_string(i) + "?\ts.\t" +
             (i % 3 ? "entailment" : "not_entailment") + "\n";
  }
  dir.write("QNLI/train.tsv", train);
  dir.write("QNLI/dev.tsv",
            "index\tquestion\tsentence\tlabel\n0\ta?\tb.\tentailment\n1\tc?\td.\tnot_entailment\n"
            "2\te?\tf.\tentailment\n");
}

}  // namespace

TEST_CASE("protocol names parse and print", "[data][eval_protocol]") {
  CHECK(parse_eval_protocol("propetl") == EvalProtocol::kProPETL);
  CHECK(parse_eval_protocol("adalora") == EvalProtocol::kAdaLoRA);
  CHECK(to_string(EvalProtocol::kProPETL) == "propetl");
  CHECK(to_string(EvalProtocol::kAdaLoRA) == "adalora");
  CHECK_THROWS_WITH(parse_eval_protocol("ProPETL"),
                    Catch::Contains("choose propetl") && Catch::Contains("adalora"));
}

TEST_CASE("propetl on RTE: dev halves 138/139 by the seed-42 permutation", "[data][eval_protocol]") {
  REQUIRE_MIRROR("RTE");
  const auto splits = make_glue_splits(glue_task("RTE"), test::mirror_root());
  CHECK(splits.train.size() == 2490);
  REQUIRE(splits.eval.size() == 138);
  REQUIRE(splits.test.size() == 139);
  CHECK_FALSE(splits.eval_is_test);
  CHECK(splits.eval.front().line == 207 + 2);
  CHECK(splits.eval.back().line == 51 + 2);
  CHECK(splits.test.front().line == 152 + 2);
  CHECK(splits.test.back().line == 38 + 2);
  CHECK(lines(splits.train) == range(2, 2491));
  CHECK(merged(lines(splits.eval), lines(splits.test)) == range(2, 278));  // a partition of dev
  CHECK(splits.description ==
        "propetl: train = RTE/train.tsv (2490); eval = first 138 of RTE/dev.tsv (277) permuted "
        "with seed 42; test = the other 139");
}

TEST_CASE("propetl on CoLA, MRPC, STS-B: ⌊n/2⌋ eval, the rest test", "[data][eval_protocol]") {
  REQUIRE_MIRROR("CoLA");
  const auto cola = make_glue_splits(glue_task("CoLA"), test::mirror_root());
  CHECK(cola.eval.size() == 521);
  CHECK(cola.test.size() == 522);
  CHECK(cola.eval.front().line == 911 + 1);  // no header: line = index + 1
  CHECK(cola.eval.back().line == 187 + 1);
  CHECK(cola.test.front().line == 334 + 1);
  CHECK(cola.test.back().line == 338 + 1);
  CHECK(merged(lines(cola.eval), lines(cola.test)) == range(1, 1043));
  REQUIRE_MIRROR("MRPC");
  const auto mrpc = make_glue_splits(glue_task("MRPC"), test::mirror_root());
  CHECK(mrpc.eval.size() == 204);
  CHECK(mrpc.test.size() == 204);
  CHECK(mrpc.eval.front().line == 30 + 2);
  CHECK(mrpc.test.front().line == 11 + 2);
  REQUIRE_MIRROR("STS-B");
  const auto stsb = make_glue_splits(glue_task("STS-B"), test::mirror_root());
  CHECK(stsb.eval.size() == 750);
  CHECK(stsb.test.size() == 750);
  CHECK(stsb.eval.front().line == 42 + 2);
  CHECK(stsb.test.front().line == 895 + 2);
  CHECK(stsb.eval.front().has_score());
}

TEST_CASE("propetl on SST-2: 1,000 train examples held out as eval, dev is test; SST-2-10k",
          "[data][eval_protocol]") {
  REQUIRE_MIRROR("SST-2");
  const auto root = test::mirror_root();
  const auto splits = make_glue_splits(glue_task("SST-2"), root);
  REQUIRE(splits.eval.size() == 1000);
  CHECK(splits.train.size() == 66349);
  CHECK(splits.test.size() == 872);
  CHECK(splits.eval.front().line == 6677 + 2);
  CHECK(splits.eval.back().line == 12967 + 2);
  CHECK(splits.train.front().line == 6043 + 2);
  CHECK(splits.train.back().line == 3253 + 2);
  CHECK(lines(splits.test) == range(2, 873));
  CHECK(merged(lines(splits.eval), lines(splits.train)) == range(2, 67350));  // disjoint, and nothing lost

  // SST-2-10k: the reference's n_obs = 10,000 takes the next 10,000 of the same permutation.
  const auto small = make_glue_splits(glue_task("SST-2-10k"), root);
  REQUIRE(small.train.size() == 10000);
  CHECK(small.train.front().line == 6043 + 2);
  CHECK(small.train.back().line == 52728 + 2);
  CHECK(lines(small.eval) == lines(splits.eval));
  CHECK(small.test.size() == 872);
  CHECK(small.task == "SST-2-10k");
  int64_t positive = 0;
  for (const auto& example : small.train) positive += example.class_id();
  CHECK(std::abs(positive / 10000.0 - 37569.0 / 67349.0) < 0.015);  // a uniform sample keeps SST-2's balance
  CHECK(small.fingerprint != splits.fingerprint);
}

TEST_CASE("adalora: dev is test and eval; train is the whole train file", "[data][eval_protocol]") {
  REQUIRE_MIRROR("RTE");
  const auto splits = make_glue_splits(glue_task("RTE"), test::mirror_root(),
                                       SplitOptions().protocol(EvalProtocol::kAdaLoRA));
  CHECK(splits.train.size() == 2490);
  CHECK(splits.eval_is_test);
  CHECK(lines(splits.eval) == range(2, 278));
  CHECK(splits.test.front().line == 2);  // file order
  CHECK(splits.test.back().line == 278);
  CHECK(splits.protocol == EvalProtocol::kAdaLoRA);
}

TEST_CASE("max_train_examples keeps a seeded uniform sample; above the size keeps all",
          "[data][eval_protocol]") {
  REQUIRE_MIRROR("RTE");
  const auto root = test::mirror_root();
  const auto limited = make_glue_splits(glue_task("RTE"), root, SplitOptions().max_train_examples(100));
  REQUIRE(limited.train.size() == 100);
  CHECK(limited.train.front().line == 432 + 2);  // randperm(2490)[0]
  CHECK(limited.train.back().line == 695 + 2);   // randperm(2490)[99]
  CHECK(limited.eval.size() == 138);
  const auto all = make_glue_splits(glue_task("RTE"), root, SplitOptions().max_train_examples(5000));
  CHECK(all.train.size() == 2490);
  CHECK_THROWS_WITH(make_glue_splits(glue_task("RTE"), root, SplitOptions().max_train_examples(-1)),
                    Catch::Contains("max_train_examples must be >= 0"));
}

TEST_CASE("the fingerprint identifies input bytes, protocol and options", "[data][eval_protocol]") {
  ScratchDir dir;
  write_qnli(dir, 1005);
  const DataRoot root{dir.path};
  const auto& qnli = glue_task("QNLI");
  const auto base = make_glue_splits(qnli, root);
  // QNLI is large: the first 1,000 of randperm(1005) are eval, the remaining 5 train
  // (randperm(1005)[1000..]).
  REQUIRE(base.train.size() == 5);
  CHECK(lines(base.train) == std::multiset<int64_t>{53 + 2, 93 + 2, 66 + 2, 231 + 2, 365 + 2});
  CHECK(base.train.front().line == 53 + 2);
  CHECK(base.eval.size() == 1000);
  CHECK(base.test.size() == 3);
  CHECK(base.fingerprint.size() == 64);
  CHECK(base.fingerprint.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(make_glue_splits(qnli, root).fingerprint == base.fingerprint);
  CHECK(make_glue_splits(qnli, root, SplitOptions().seed(43)).fingerprint != base.fingerprint);
  CHECK(make_glue_splits(qnli, root, SplitOptions().protocol(EvalProtocol::kAdaLoRA)).fingerprint !=
        base.fingerprint);
  CHECK(make_glue_splits(qnli, root, SplitOptions().held_out_eval(999)).fingerprint != base.fingerprint);
  REQUIRE(base.files.size() == 2);
  CHECK(base.files[0].first == "QNLI/train.tsv");
  CHECK(base.files[1].first == "QNLI/dev.tsv");
  // One changed byte in an input file changes the fingerprint.
  write_qnli(dir, 1005);
  dir.write("QNLI/dev.tsv",
            "index\tquestion\tsentence\tlabel\n0\ta?\tb.\tentailment\n1\tc?\td.\tnot_entailment\n"
            "2\te?\tf!\tentailment\n");
  CHECK(make_glue_splits(qnli, root).fingerprint != base.fingerprint);

  const auto record = provenance_json(base);
  CHECK(record["task"] == "QNLI");
  CHECK(record["protocol"] == "propetl");
  CHECK(record["split_seed"] == 42);
  CHECK(record["train"] == 5);
  CHECK(record["eval"] == 1000);
  CHECK(record["test"] == 3);
  CHECK(record["eval_is_test"] == false);
  CHECK(record["fingerprint"] == base.fingerprint);
  CHECK(record["files"]["QNLI/train.tsv"] == base.files[0].second);
}

TEST_CASE("split errors: too few rows to hold out, a missing task", "[data][eval_protocol]") {
  ScratchDir dir;
  write_qnli(dir, 1000);
  CHECK_THROWS_WITH(make_glue_splits(glue_task("QNLI"), DataRoot{dir.path}),
                    Catch::Contains("QNLI/train.tsv has 1000 examples, too few to hold out 1000"));
  CHECK(make_glue_splits(glue_task("QNLI"), DataRoot{dir.path}, SplitOptions().held_out_eval(10))
            .train.size() == 990);
  CHECK_THROWS_AS(make_glue_splits(glue_task("MNLI"), DataRoot{dir.path}), MissingDataError);
  CHECK_THROWS_WITH(make_glue_splits(glue_task("MNLI"), DataRoot{dir.path}),
                    Catch::Contains("GLUE task MNLI is not available") && Catch::Contains("fetch_glue.sh"));
}
