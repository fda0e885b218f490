// The build identity script (harness/execute/write_build_identity.cmake) on a scratch repository: a
// clean tree names its commit; any uncommitted change, a comment included, sets the dirty flag and a
// digest of the change; an unchanged tree leaves the file untouched (nothing recompiles). Whether a
// change matters numerically is the fingerprint's question, not this one's.

#include "execute/build_identity.h"

#include "support/read_text.h"
#include "support/temp_dir.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <regex>

namespace fs = std::filesystem;
using capaboost::testing::read_text;
using capaboost::testing::TempDir;
using namespace capaboost::harness;

namespace {

struct Written {
  std::string commit, diff_sha256;
  bool dirty = false;
};

int shell(const std::string& command) { return std::system((command + " > /dev/null 2>&1").c_str()); }

std::string value_of(const std::string& text, const std::string& name) {
  std::smatch match;
  REQUIRE(std::regex_search(text, match, std::regex(name + " = \"?([^\";]*)\"?;")));
  return match[1];
}

Written write_identity(const fs::path& source, const fs::path& output) {
  const std::string script = std::string(CAPABOOST_SOURCE_DIR) + "/harness/execute/write_build_identity.cmake";
  REQUIRE(shell(fmt::format("cmake -DSOURCE_DIR='{}' -DOUTPUT='{}' '-DCOMPILER=GNU 12' -DBUILD_TYPE=Release -P '{}'",
                            source.string(), output.string(), script)) == 0);
  const std::string text = read_text(output);
  return {value_of(text, "kBuildCommit"), value_of(text, "kBuildDiffSha256"), value_of(text, "kBuildDirty") == "true"};
}

}  // namespace

TEST_CASE("the build identity names the commit, and any uncommitted change by its digest", "[harness][execute]") {
  TempDir dir;
  const fs::path repo = dir.path() / "repo";
  const fs::path out = dir.path() / "identity.cpp";
  fs::create_directories(repo);
  const std::string git = fmt::format("git -C '{}' -c user.name=t -c user.email=t@t ", repo.string());
  REQUIRE(shell(git + "init -q") == 0);
  std::ofstream(repo / "kernel.cpp") << "float f(float x) { return x * x; }\n";
  std::ofstream(repo / ".gitignore") << "build/\n";
  REQUIRE(shell(git + "add -A") == 0);
  REQUIRE(shell(git + "commit -q -m one") == 0);

  const Written clean = write_identity(repo, out);
  CHECK(std::regex_match(clean.commit, std::regex("[0-9a-f]{40}")));
  CHECK_FALSE(clean.dirty);
  CHECK(clean.diff_sha256.empty());
  const auto stamp = fs::last_write_time(out);

  // Nothing changed: the file is not rewritten.
  write_identity(repo, out);
  CHECK(fs::last_write_time(out) == stamp);

  // A comment is a change of the source: dirty, with a digest; another comment, another digest.
  std::ofstream(repo / "kernel.cpp", std::ios::app) << "// why\n";
  const Written comment = write_identity(repo, out);
  CHECK(comment.dirty);
  CHECK(comment.commit == clean.commit);
  CHECK(std::regex_match(comment.diff_sha256, std::regex("[0-9a-f]{64}")));
  std::ofstream(repo / "kernel.cpp", std::ios::app) << "// and why not\n";
  const Written second = write_identity(repo, out);
  CHECK(second.diff_sha256 != comment.diff_sha256);

  // An untracked file counts; an ignored one does not.
  std::ofstream(repo / "new_kernel.cpp") << "int g();\n";
  const Written untracked = write_identity(repo, out);
  CHECK(untracked.diff_sha256 != second.diff_sha256);
  fs::create_directories(repo / "build");
  std::ofstream(repo / "build" / "object.o") << "binary";
  CHECK(write_identity(repo, out).diff_sha256 == untracked.diff_sha256);

  // Committed: clean again, at the new commit.
  REQUIRE(shell(git + "add -A") == 0);
  REQUIRE(shell(git + "commit -q -m two") == 0);
  const Written committed = write_identity(repo, out);
  CHECK_FALSE(committed.dirty);
  CHECK(committed.commit != clean.commit);

  // Outside git: the commit is unknown.
  const fs::path plain = dir.path() / "plain";
  fs::create_directories(plain);
  CHECK(write_identity(plain, out).commit == "unknown");
}

TEST_CASE("this program's build identity is compiled in", "[harness][execute]") {
  const BuildIdentity& build = this_build();
  CHECK((std::regex_match(build.commit, std::regex("[0-9a-f]{40}")) || build.commit == "unknown"));
  CHECK(build.dirty == !build.diff_sha256.empty());
  CHECK_FALSE(build.compiler.empty());
  CHECK_FALSE(build.libtorch.empty());
  CHECK(build.to_json().at("commit") == build.commit);
}
