#include "data/glue_loader.h"

#include <catch2/catch.hpp>

#include "util/sha256.h"
#include "glue_test_support.h"

using namespace capaboost;
using capaboost::test::ScratchDir;

namespace {

// Loads `bytes` written as <scratch>/<task folder>/<file>.
GlueFileData load_text(const ScratchDir& dir, const std::string& task_name, GlueFile file,
                       const std::string& bytes) {
  const auto& task = glue_task(task_name);
  dir.write(task.folder + "/" + task.file_name(file), bytes);
  return load_glue_file(task, DataRoot{dir.path}, file);
}

const std::string kMnliTrainHeader =
    "index\tpromptID\tpairID\tgenre\tsentence1_binary_parse\tsentence2_binary_parse\tsentence1_parse\t"
    "sentence2_parse\tsentence1\tsentence2\tlabel1\tgold_label\n";

}  // namespace

TEST_CASE("CoLA: headerless labeled files, literal quotes, an unterminated last line",
          "[data][glue_loader]") {
  ScratchDir dir;
  const std::string bytes =
      "gj04\t1\t\tThe sailors rode the breeze clear of the rocks.\n"
      "gj04\t0\t*\tHe said \"go away.\n"     // an unbalanced quote is ordinary text
      "bc01\t1\t\tThe \"big\" dog barked.";  // no final newline (as CoLA's dev.tsv)
  const auto data = load_text(dir, "CoLA", GlueFile::kDev, bytes);
  REQUIRE(data.examples.size() == 3);
  CHECK(data.examples[0].text_a == "The sailors rode the breeze clear of the rocks.");
  CHECK(data.examples[0].class_id() == 1);
  CHECK_FALSE(data.examples[0].text_b.has_value());
  CHECK(data.examples[1].text_a == "He said \"go away.");
  CHECK(data.examples[1].class_id() == 0);
  CHECK(data.examples[2].text_a == "The \"big\" dog barked.");
  CHECK(data.examples[2].line == 3);
  CHECK(data.sha256 == sha256_hex(bytes));

  const auto test =
      load_text(dir, "CoLA", GlueFile::kTest, "index\tsentence\n0\tBill whistled past the house.\n");
  REQUIRE(test.examples.size() == 1);
  CHECK(test.examples[0].text_a == "Bill whistled past the house.");
  CHECK_FALSE(test.examples[0].has_label());
  CHECK(test.examples[0].line == 2);
}

TEST_CASE("MRPC: the UTF-8 BOM before the header is dropped, pairs and labels read", "[data][glue_loader]") {
  ScratchDir dir;
  const auto data = load_text(dir, "MRPC", GlueFile::kTrain,
                              "\xEF\xBB\xBFQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\n"
                              "1\t702876\t702977\tAmrozi accused his brother.\t\"The witness\", he said.\n"
                              "0\t2108705\t2108831\tYucaipa owned Dominick's.\tYucaipa bought Dominick's.\n");
  REQUIRE(data.examples.size() == 2);
  CHECK(data.examples[0].text_a == "Amrozi accused his brother.");
  CHECK(data.examples[0].text_b == std::optional<std::string>("\"The witness\", he said."));
  CHECK(data.examples[0].class_id() == 1);
  CHECK(data.examples[1].class_id() == 0);
}

TEST_CASE("SST-2: texts are verbatim (trailing space kept); CRLF line ends are tolerated",
          "[data][glue_loader]") {
  ScratchDir dir;
  const auto data = load_text(dir, "SST-2", GlueFile::kTrain,
                              "sentence\tlabel\r\nhide new secretions from the parental units \t0\r\n");
  REQUIRE(data.examples.size() == 1);
  CHECK(data.examples[0].text_a == "hide new secretions from the parental units ");
  CHECK(data.examples[0].class_id() == 0);
}

TEST_CASE("STS-B: float scores in [0, 5]; the test file has no score column", "[data][glue_loader]") {
  ScratchDir dir;
  const std::string header =
      "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2";
  const auto data =
      load_text(dir, "STS-B", GlueFile::kTrain,
                header +
                    "\tscore\n"
                    "0\tmain-captions\tMSRvid\t2012test\t0001\tnone\tnone\tA plane.\tAn air plane.\t5.000\n"
                    "1\tmain-news\tMSRpar\t2012train\t0002\tnone\tnone\tA b.\tC d.\t0.25\n");
  REQUIRE(data.examples.size() == 2);
  CHECK(data.examples[0].score() == 5.0);
  CHECK(data.examples[1].score() == 0.25);
  CHECK(*data.examples[1].text_b == "C d.");
  const auto test =
      load_text(dir, "STS-B", GlueFile::kTest,
                header + "\n0\tmain-captions\tMSRvid\t2012test\t0024\tnone\tnone\tA girl.\tA girl.\n");
  CHECK_FALSE(test.examples.at(0).has_label());
}

TEST_CASE("MNLI: columns found by header name; matched, mismatched and test files", "[data][glue_loader]") {
  ScratchDir dir;
  const std::string parses = "\t( x )\t( y )\t(ROOT x)\t(ROOT y)\t";
  const auto train = load_text(
      dir, "MNLI", GlueFile::kTrain,
      kMnliTrainHeader + "0\t31193\t31193n\tgovernment" + parses +
          "Conceptually cream skimming has two dimensions.\tProduct and geography.\tneutral\tneutral\n"
          "1\t101457\t101457e\ttelephone" +
          parses +
          "you know\tYou lose.\tentailment\tentailment\n"
          "2\t134793\t134793c\tfiction" +
          parses + "It's \"fine\".\tIt isn't.\tcontradiction\tcontradiction\n");
  REQUIRE(train.examples.size() == 3);
  CHECK(train.examples[0].text_a == "Conceptually cream skimming has two dimensions.");
  CHECK(*train.examples[0].text_b == "Product and geography.");
  CHECK(train.examples[0].class_id() == 1);  // neutral
  CHECK(train.examples[1].class_id() == 0);  // entailment
  CHECK(train.examples[2].class_id() == 2);  // contradiction
  CHECK(train.examples[2].text_a == "It's \"fine\".");

  // dev files carry five annotator labels; the gold label is the last column.
  const std::string dev_header =
      "index\tpromptID\tpairID\tgenre\tsentence1_binary_parse\tsentence2_binary_parse\tsentence1_parse\t"
      "sentence2_parse\tsentence1\tsentence2\tlabel1\tlabel2\tlabel3\tlabel4\tlabel5\tgold_label\n";
  const std::string dev_row = "0\t63735\t63735n\tslate" + parses +
                              "The new rights are nice.\tEveryone loves "
                              "them.\tneutral\tentailment\tneutral\tneutral\tneutral\tneutral\n";
  CHECK(load_text(dir, "MNLI", GlueFile::kDev, dev_header + dev_row).examples.at(0).class_id() == 1);
  CHECK(load_text(dir, "MNLI", GlueFile::kDevMismatched, dev_header + dev_row).examples.at(0).class_id() ==
        1);
  const std::string test_header =
      "index\tpromptID\tpairID\tgenre\tsentence1_binary_parse\tsentence2_binary_parse\tsentence1_parse\t"
      "sentence2_parse\tsentence1\tsentence2\n";
  const auto test = load_text(dir, "MNLI", GlueFile::kTestMismatched,
                              test_header + "0\t1\t1n\tletters" + parses + "Hello.\tHi.\n");
  CHECK(test.examples.at(0).text_a == "Hello.");
  CHECK_FALSE(test.examples.at(0).has_label());
  CHECK(test.path.filename() == "test_mismatched.tsv");
}

TEST_CASE("QQP and QNLI layouts", "[data][glue_loader]") {
  ScratchDir dir;
  const auto qqp = load_text(
      dir, "QQP", GlueFile::kDev,
      "id\tqid1\tqid2\tquestion1\tquestion2\tis_duplicate\n"
      "201359\t303345\t303346\tWhy are African-Americans so beautiful?\tWhy are hispanics so beautiful?\t0\n"
      "263843\t69383\t380476\tI want to pursue PhD in CS?\tHow do I get a PhD in CS?\t1\n");
  REQUIRE(qqp.examples.size() == 2);
  CHECK(qqp.examples[1].class_id() == 1);
  CHECK(*qqp.examples[0].text_b == "Why are hispanics so beautiful?");
  CHECK(
      load_text(dir, "QQP", GlueFile::kTest, "id\tquestion1\tquestion2\n0\tA?\tB?\n").examples.at(0).text_a ==
      "A?");

  const auto qnli = load_text(dir, "QNLI", GlueFile::kTrain,
                              "index\tquestion\tsentence\tlabel\n"
                              "0\tWhen did it start?\tIt started in 1990.\tentailment\n"
                              "1\tWho?\tNobody knows.\tnot_entailment\n");
  CHECK(qnli.examples.at(0).class_id() == 0);
  CHECK(qnli.examples.at(1).class_id() == 1);
  CHECK(qnli.examples.at(1).text_a == "Who?");
}

TEST_CASE("malformed rows are errors naming file, line and fix", "[data][glue_loader]") {
  ScratchDir dir;
  SECTION("a truncated row") {
    CHECK_THROWS_WITH(load_text(dir, "CoLA", GlueFile::kTrain, "gj04\t1\t\tFine.\ngj04\t1\tTrunc"),
                      Catch::Contains("CoLA/train.tsv:2: expected 4 tab-separated columns") &&
                          Catch::Contains("found 3") && Catch::Contains("truncated") &&
                          Catch::Contains("fetch_glue.sh"));
  }
  SECTION("a stray tab") {
    CHECK_THROWS_WITH(
        load_text(dir, "RTE", GlueFile::kDev,
                  "index\tsentence1\tsentence2\tlabel\n0\ta\tb\tentailment\n1\ta\tb\tc\tentailment\n"),
        Catch::Contains("RTE/dev.tsv:3: expected 4") && Catch::Contains("found 5") &&
            Catch::Contains("stray tab"));
  }
  SECTION("a label outside the vocabulary") {
    CHECK_THROWS_WITH(
        load_text(dir, "RTE", GlueFile::kTrain, "index\tsentence1\tsentence2\tlabel\n0\ta\tb\tentailed\n"),
        Catch::Contains("RTE/train.tsv:2: the RTE label 'entailed'") &&
            Catch::Contains("not one of entailment, not_entailment"));
    CHECK_THROWS_WITH(load_text(dir, "SST-2", GlueFile::kTrain, "sentence\tlabel\ngood\t1\nbad\t2\n"),
                      Catch::Contains("SST-2/train.tsv:3") && Catch::Contains("label '2'"));
    // A header row in a headerless CoLA file shows up as a bad label on line 1.
    CHECK_THROWS_WITH(
        load_text(dir, "CoLA", GlueFile::kTrain, "source\tlabel\torig\tsentence\ngj04\t1\t\tOk.\n"),
        Catch::Contains("CoLA/train.tsv:1") && Catch::Contains("label 'label'"));
  }
  SECTION("STS-B scores that are not numbers in [0, 5]") {
    const std::string header =
        "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2\tscore\n";
    const std::string row = "0\tg\tf\ty\to\tnone\tnone\tA.\tB.\t";
    for (const char* bad : {"abc", "5.5", "-1", "", "3.0x", "nan"}) {
      CHECK_THROWS_WITH(load_text(dir, "STS-B", GlueFile::kDev, header + row + "1.0\n" + row + bad + "\n"),
                        Catch::Contains("STS-B/dev.tsv:3: the STS-B score '" + std::string(bad) + "'") &&
                            Catch::Contains("not a number in [0, 5]"));
    }
  }
  SECTION("an empty file, a header-only file, a blank line") {
    CHECK_THROWS_WITH(load_text(dir, "SST-2", GlueFile::kDev, ""),
                      Catch::Contains("SST-2/dev.tsv") && Catch::Contains("the file is empty"));
    CHECK_THROWS_WITH(load_text(dir, "SST-2", GlueFile::kDev, "sentence\tlabel\n"),
                      Catch::Contains("SST-2/dev.tsv: the file has no examples"));
    CHECK_THROWS_WITH(load_text(dir, "SST-2", GlueFile::kDev, "sentence\tlabel\ngood\t1\n\nbad\t0\n"),
                      Catch::Contains("SST-2/dev.tsv:3: expected 2") && Catch::Contains("found 1"));
  }
  SECTION("a header without the task's columns") {
    CHECK_THROWS_WITH(load_text(dir, "SST-2", GlueFile::kTrain, "text\tlabel\ngood\t1\n"),
                      Catch::Contains("SST-2/train.tsv:1: the header has no column 'sentence'") &&
                          Catch::Contains("found: text, label"));
    CHECK_THROWS_WITH(
        load_text(dir, "MNLI", GlueFile::kTrain, "index\tsentence1\tsentence2\tlabel\n0\ta\tb\tneutral\n"),
        Catch::Contains("no column 'gold_label'"));
  }
}

TEST_CASE("an absent file is a MissingDataError naming the task, the path and the download step",
          "[data][glue_loader]") {
  ScratchDir dir;
  dir.write("QNLI/train.tsv", "index\tquestion\tsentence\tlabel\n0\tq\ts\tentailment\n");
  try {
    load_glue_file(glue_task("QNLI"), DataRoot{dir.path, "spec"}, GlueFile::kDev);
    FAIL("expected MissingDataError");
  } catch (const MissingDataError& error) {
    const std::string message = error.what();
    CHECK_THAT(message, Catch::Contains("GLUE task QNLI is not available") &&
                            Catch::Contains((dir.path / "QNLI" / "dev.tsv").string()) &&
                            Catch::Contains("from spec") &&
                            Catch::Contains("harness/scripts/fetch_glue.sh " + dir.path.string() + " QNLI"));
  }
  CHECK_NOTHROW(load_glue_file(glue_task("QNLI"), DataRoot{dir.path}, GlueFile::kTrain));
}
