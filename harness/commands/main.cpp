// The `capaboost` program: entry point and sub-command wiring.

#include <c10/util/Exception.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <vector>

#include "commands/commands.h"
#include "spec/diagnostics.h"
#include "runtime/blas_runtime.h"
#include "runtime/caching_cpu_allocator.h"
#include "util/setup_error.h"

int main(int argc, char** argv) {
  // Before anything else: OpenBLAS picks its kernels when it loads, so a fix needs a re-exec.
  capaboost::runtime::ensure_fast_blas_kernels(argc, argv);
  // Training allocates the same activation buffers every step; caching them saves the kernel's page
  // zeroing (see runtime/caching_cpu_allocator.h). CAPABOOST_NO_CACHING_ALLOCATOR=1 turns it off.
  if (std::getenv("CAPABOOST_NO_CACHING_ALLOCATOR") == nullptr) capaboost::runtime::enable_caching_cpu_allocator();

  CLI::App app{"CapaBoost Bench: reproduce and extend 'Increasing Model Capacity for Free' (ICLR 2024)"};
  app.require_subcommand(1);
  int threads = 0;
  app.add_option("--threads", threads, "torch intra-op threads (0: $CAPABOOST_THREADS or all cores)");

  std::vector<capaboost::harness::Command> commands;
  commands.push_back(capaboost::harness::env_command(app));
  commands.push_back(capaboost::harness::plan_command(app));
  commands.push_back(capaboost::harness::run_command(app));
  commands.push_back(capaboost::harness::status_command(app));
  commands.push_back(capaboost::harness::report_command(app));
  commands.push_back(capaboost::harness::reindex_command(app));
  commands.push_back(capaboost::harness::fsck_command(app));
  commands.push_back(capaboost::harness::methods_command(app));
  commands.push_back(capaboost::harness::measures_command(app));
  commands.push_back(capaboost::harness::tasks_command(app));
  commands.push_back(capaboost::harness::models_command(app));
  commands.push_back(capaboost::harness::backbone_command(app));
  commands.push_back(capaboost::harness::squad_eval_command(app));
  commands.push_back(capaboost::harness::export_command(app));
  commands.push_back(capaboost::harness::gallery_command(app));
  commands.push_back(capaboost::harness::tensorboard_command(app));
  commands.push_back(capaboost::harness::export_mlflow_command(app));
  commands.push_back(capaboost::harness::verify_command(app));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    capaboost::runtime::configure_threads(threads);
    for (auto& command : commands) {
      if (command.app->parsed()) return command.run();
    }
  } catch (const capaboost::harness::SpecError& e) {
    std::cerr << e.what() << "\ncapaboost: the spec has errors; nothing was run\n";
    return capaboost::harness::kExitBadSpec;
  } catch (const capaboost::SetupError& e) {
    std::cerr << "capaboost: set-up: " << e.what()
              << "\ncapaboost: stopped; nothing was recorded for runs that did not finish — fix the set-up and "
                 "run the same command again\n";
    return capaboost::harness::kExitSetup;
  } catch (const c10::Error& e) {
    // Contract errors carry a C++ backtrace that helps developers but buries the message for users.
    std::cerr << "capaboost: error: " << e.what_without_backtrace() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "capaboost: error: " << e.what() << "\n";
    return 1;
  }
  return 2;
}
