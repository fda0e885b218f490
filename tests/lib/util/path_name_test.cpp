#include "util/path_name.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace capaboost;

TEST_CASE("path names: the suite's own names pass", "[util][path_name]") {
  for (const char* name : {"table2_glue_roberta_base", "cpu", "paper", "figure_eval_score", "target=flat",
                           "updates-minilm-full-MRPC-layer.3.attention.self.value", "a",
                           "008f5e14f2a7d185516085a4043888437a54402f2b06ab8553d88d942a4aff85"}) {
    INFO(name);
    CHECK_FALSE(path_name_problem(name));
    CHECK_NOTHROW(check_path_name(name, "name"));
  }
}

TEST_CASE("path names: traversal, separators, control characters and odd starts are refused", "[util][path_name]") {
  CHECK(path_name_problem("") == std::string("is empty"));
  CHECK(path_name_problem("..") == std::string("contains '..'"));
  CHECK(path_name_problem("../../../escaped") == std::string("contains '..'"));
  CHECK(path_name_problem("a..b") == std::string("contains '..'"));
  CHECK(path_name_problem("a/b") == std::string("contains '/' (a folder separator)"));
  CHECK(path_name_problem("a\\b") == std::string("contains '\\' (a folder separator)"));
  CHECK(path_name_problem("/etc") == std::string("contains '/' (a folder separator)"));
  CHECK(path_name_problem(".hidden") == std::string("starts with '.'"));
  CHECK(path_name_problem("-rf") == std::string("starts with '-'"));
  CHECK(path_name_problem("a b") == std::string("contains ' '"));
  CHECK(path_name_problem("it's") == std::string("contains '''"));
  CHECK(path_name_problem("a\nb") == std::string("contains the control character 0x0a"));
  CHECK(path_name_problem(std::string("a\0b", 3)) == std::string("contains the control character 0x00"));
  CHECK(path_name_problem("caf\xc3\xa9") == std::string("contains the non-ASCII byte 0xc3"));
  CHECK(path_name_problem(std::string(kMaxPathNameLength, 'a')) == std::nullopt);
  CHECK(path_name_problem(std::string(kMaxPathNameLength + 1, 'a')) ==
        std::string("is 129 characters long"));
}

TEST_CASE("path names: the error names what, the name (escaped) and the rule", "[util][path_name]") {
  CHECK_THROWS_WITH(check_path_name("../../../escaped", "spec name"),
                    Catch::Contains("spec name '../../../escaped' cannot be a file name: it contains '..'") &&
                        Catch::Contains("starting with a letter or digit"));
  CHECK_THROWS_WITH(check_path_name("x\ny", "profile"), Catch::Contains("profile 'x\\x0ay'"));
}

TEST_CASE("path name slugs: free text becomes a name the rule accepts", "[util][path_name]") {
  CHECK(path_name_slug("CapaBoost-LoRA (d=2)") == "CapaBoost-LoRA_d=2");
  CHECK(path_name_slug("LoRA r=8") == "LoRA_r=8");
  CHECK(path_name_slug("../../etc/passwd") == "etc_passwd");
  CHECK(path_name_slug("a..b") == "a.b");
  CHECK(path_name_slug("") == "x");
  CHECK(path_name_slug("Ünïcode ☃") == "n_code");
  CHECK(path_name_slug(std::string(300, 'a')).size() == 64);
  for (const std::string& text : std::vector<std::string>{"(x)", "-lead", "tail.", std::string("ctl\x01\n"), std::string(500, '.'), "._-=", "a/b\\c"}) {
    INFO(text);
    CHECK_FALSE(path_name_problem(path_name_slug(text)));
  }
}
