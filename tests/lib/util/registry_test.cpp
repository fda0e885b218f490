#include "util/registry.h"

#include <catch2/catch.hpp>

using namespace capaboost;
using Catch::Contains;

namespace {

struct Entry {
  std::string name;
  int value = 0;
};

}  // namespace

TEST_CASE("a registry finds entries by name and refuses duplicates", "[util][registry]") {
  Registry<Entry> registry("widget");
  registry.add({"lora", 1});
  registry.add({"adapter", 2});
  CHECK(registry.find("lora").value == 1);
  CHECK(registry.find_if_present("prefix") == nullptr);
  CHECK(registry.names() == std::vector<std::string>{"adapter", "lora"});
  CHECK_THROWS_WITH(registry.add({"lora", 3}), Contains("a widget named 'lora' is already registered"));
  CHECK_THROWS_WITH(registry.find("lroa"), Contains("unknown widget 'lroa' (did you mean 'lora'?); registered: adapter, lora"));
  CHECK_THROWS_WITH(registry.add({"", 0}), Contains("a widget needs a name"));
}
