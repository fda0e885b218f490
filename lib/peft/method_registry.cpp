#include "peft/method_registry.h"

#include "util/registry.h"

namespace capaboost {
namespace {

Registry<MethodSpec>& methods() {
  static Registry<MethodSpec> registry("PEFT method");
  return registry;
}

}  // namespace

bool register_method(MethodSpec method) {
  TORCH_CHECK(method.attach, "register_method: method '", method.name, "' has no attach function");
  method.parameters = owned(std::move(method.parameters), "method " + method.name);
  methods().add(std::move(method));
  return true;
}

const MethodSpec& find_method(const std::string& name) { return methods().find(name); }

std::vector<std::string> method_names() { return methods().names(); }

}  // namespace capaboost
