#include "data/glue_task.h"

#include <catch2/catch.hpp>

using namespace capaboost;

TEST_CASE("the registry holds the paper's eight GLUE tasks and SST-2-10k", "[data][glue_task]") {
  std::vector<std::string> names;
  for (const auto& task : glue_tasks()) names.push_back(task.name);
  CHECK(names == std::vector<std::string>{"CoLA", "SST-2", "MRPC", "QQP", "STS-B", "MNLI", "QNLI", "RTE",
                                          "SST-2-10k"});
}

TEST_CASE("label vocabularies follow Hugging Face datasets' ClassLabel order", "[data][glue_task]") {
  using V = std::vector<std::string>;
  CHECK(glue_task("cola").label_names == V{"unacceptable", "acceptable"});
  CHECK(glue_task("sst2").label_names == V{"negative", "positive"});
  CHECK(glue_task("mrpc").label_names == V{"not_equivalent", "equivalent"});
  CHECK(glue_task("qqp").label_names == V{"not_duplicate", "duplicate"});
  CHECK(glue_task("mnli").label_names == V{"entailment", "neutral", "contradiction"});
  CHECK(glue_task("qnli").label_names == V{"entailment", "not_entailment"});
  CHECK(glue_task("rte").label_names == V{"entailment", "not_entailment"});
  // The TSVs write CoLA/SST-2/MRPC/QQP labels as digits and the NLI tasks' as words.
  CHECK(glue_task("MRPC").label_tokens == V{"0", "1"});
  CHECK(glue_task("RTE").label_tokens == V{"entailment", "not_entailment"});
  const auto& stsb = glue_task("STS-B");
  CHECK(stsb.regression);
  CHECK(stsb.num_labels == 1);
  CHECK(stsb.label_names.empty());
  CHECK(glue_task("MNLI").num_labels == 3);
}

TEST_CASE("metrics and selection metrics per task", "[data][glue_task]") {
  using V = std::vector<std::string>;
  CHECK(glue_task("CoLA").metric_names == V{"matthews_correlation"});
  CHECK(glue_task("CoLA").selection_metrics == V{"matthews_correlation"});
  for (const char* name : {"SST-2", "QNLI", "RTE", "MNLI"}) {
    CHECK(glue_task(name).metric_names == V{"accuracy"});
    CHECK(glue_task(name).selection_metrics == V{"accuracy"});
  }
  for (const char* name : {"MRPC", "QQP"}) CHECK(glue_task(name).selection_metrics == V{"accuracy", "f1"});
  CHECK(glue_task("STS-B").selection_metrics == V{"pearson", "spearmanr"});
}

TEST_CASE("ProPETL's large group and the SST-2-10k subset", "[data][glue_task]") {
  for (const auto& task : glue_tasks()) {
    const bool large =
        task.folder == "SST-2" || task.name == "QNLI" || task.name == "QQP" || task.name == "MNLI";
    CHECK(task.large == large);
  }
  const auto& sst2_10k = glue_task("SST-2-10k");
  CHECK(sst2_10k.folder == "SST-2");
  CHECK(sst2_10k.train_subset == 10000);
  CHECK(glue_task("SST-2").train_subset == 0);
}

TEST_CASE("task lookup accepts GLUE and Hugging Face spellings", "[data][glue_task]") {
  CHECK(glue_task("sst-2").name == "SST-2");
  CHECK(glue_task("SST2").name == "SST-2");
  CHECK(glue_task("stsb").name == "STS-B");
  CHECK(glue_task("sts_b").name == "STS-B");
  CHECK(glue_task("sst2_10k").name == "SST-2-10k");
  CHECK_THROWS_WITH(glue_task("wnli"),
                    Catch::Contains("unknown GLUE task 'wnli'") && Catch::Contains("CoLA, SST-2"));
}

TEST_CASE("file names, including MNLI's matched and mismatched files", "[data][glue_task]") {
  CHECK(glue_task("RTE").file_name(GlueFile::kDev) == "dev.tsv");
  CHECK(glue_task("MNLI").file_name(GlueFile::kDev) == "dev_matched.tsv");
  CHECK(glue_task("MNLI").file_name(GlueFile::kTest) == "test_matched.tsv");
  CHECK(glue_task("MNLI").file_name(GlueFile::kDevMismatched) == "dev_mismatched.tsv");
  CHECK(glue_task("MNLI").file_name(GlueFile::kTestMismatched) == "test_mismatched.tsv");
  CHECK_THROWS_WITH(glue_task("QNLI").file_name(GlueFile::kDevMismatched), Catch::Contains("only MNLI"));
}
