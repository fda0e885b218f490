// `capaboost methods | measures | tasks | models`: what specs may name, with every parameter's type,
// default and doc, read from the registries (so a registered variant lists itself).

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backbones/backbone_registry.h"
#include "commands/commands.h"
#include "measures/measure_registry.h"
#include "peft/method_registry.h"
#include "tasks/task_registry.h"

namespace capaboost::harness {
namespace {

std::string range_text(const ParameterDef& def) {
  std::vector<std::string> parts;
  if (def.min) parts.push_back(fmt::format("{} {:g}", def.min_exclusive ? ">" : ">=", *def.min));
  if (def.max) parts.push_back(fmt::format("<= {:g}", *def.max));
  if (def.choices) parts.push_back(fmt::format("{}", fmt::join(def.choices(), "|")));
  return fmt::format("{}", fmt::join(parts, ", "));
}

// "    rank (int, default 8; >= 1, <= 4096): LoRA rank r [method lora]"
void print_parameters(const ParameterList& parameters) {
  for (const auto& def : parameters) {
    const std::string range = range_text(def);
    fmt::print("    {} ({}, default {}{}): {}{}\n", def.name, to_string(def.type), def.default_text(),
               range.empty() ? "" : "; " + range, def.doc, def.owner.empty() ? "" : " [" + def.owner + "]");
  }
}

Command listing(CLI::App& app, const std::string& name, const std::string& help, std::function<void()> print) {
  auto* sub = app.add_subcommand(name, help);
  return {sub, [print] {
            print();
            return int{kExitOk};
          }};
}

}  // namespace

Command methods_command(CLI::App& app) {
  return listing(app, "methods", "List the PEFT methods specs may name, with their parameters and defaults", [] {
    for (const auto& name : method_names()) {
      const MethodSpec& method = find_method(name);
      fmt::print("{}: {} (trains: {})\n", name, method.description, method.trains);
      print_parameters(method.parameters);
    }
  });
}

Command measures_command(CLI::App& app) {
  return listing(app, "measures", "List the measures specs may name, with their parameters, defaults and metrics", [] {
    for (const auto& name : measure_names()) {
      const MeasureSpec& measure = find_measure(name);
      fmt::print("{}: {}\n", name, measure.description);
      print_parameters(run_parameters(measure));
      fmt::print("  metrics (what a report may show):\n");
      for (const auto& metric : measure.metrics) fmt::print("    {}: {}\n", metric.name, metric.description);
    }
  });
}

Command tasks_command(CLI::App& app) {
  return listing(app, "tasks", "List the tasks specs may name, with their parameters and defaults", [] {
    for (const auto& name : task_names()) {
      const TaskSpec& task = find_task(name);
      fmt::print("{}: {} (data: <data root>/{})\n", name, task.description, task.data_folder);
      print_parameters(task.parameters);
    }
  });
}

Command models_command(CLI::App& app) {
  return listing(app, "models", "List the named backbones and the checkpoint architectures a model may be", [] {
    fmt::print("named backbones:\n");
    for (const auto& name : backbone_names()) fmt::print("  {}\n", name);
    fmt::print("checkpoint directories (config.json model_type): {}\n", fmt::join(architecture_names(), ", "));
  });
}

}  // namespace capaboost::harness
