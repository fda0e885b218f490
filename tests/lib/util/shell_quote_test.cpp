#include "util/shell_quote.h"

#include "cluster/program_output.h"

#include <catch2/catch.hpp>

using capaboost::shell_quote;
using capaboost::harness::run_program;

TEST_CASE("shell_quote makes any argument one word the shell gives back unchanged", "[util][shell_quote]") {
  for (const std::string& word : {std::string("plain/path-1.yaml"), std::string("with space"), std::string("it's"),
                                 std::string("$HOME `id` \"q\" \\ ;|&*?"), std::string("")}) {
    INFO(word);
    const auto printed = run_program({"sh", "-c", "printf %s " + shell_quote(word)});
    REQUIRE(printed.exit_code == 0);
    CHECK(printed.out == word);
  }
  CHECK(shell_quote("plain/path-1.yaml") == "plain/path-1.yaml");
}
