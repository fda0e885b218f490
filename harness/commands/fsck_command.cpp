// `capaboost fsck [--results DIR] [--repair]`: checks a results folder against itself (store/store_check.h)
// and, with --repair, moves what fails to quarantine/ — printing each move and how to rerun what it held.

#include "commands/commands.h"
#include "store/store_check.h"

#include <fmt/format.h>

#include <memory>

namespace capaboost::harness {

Command fsck_command(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "fsck", "Check the run records (digests), tuned states, index and claims of a results folder; --repair moves "
              "what fails to quarantine/ (never deletes)");
  auto results = std::make_shared<std::string>("results");
  auto repair = std::make_shared<bool>(false);
  sub->add_option("--results", *results, "results folder");
  sub->add_flag("--repair", *repair,
                "move every failing file to <results>/quarantine/<UTC time>/ and rebuild the index; the next "
                "`capaboost run` reruns the runs whose records moved");
  return {sub, [results, repair] {
            RecordStore store(*results);
            RunClaims claims(*results);
            StoreCheck check = check_store(store, claims);
            fmt::print("fsck {}: {} record(s) ({} sealed, {} written before seals, {} failing), {} tuned state(s), "
                       "index of {} row(s)\n",
                       *results, check.records, check.sealed, check.unsealed,
                       check.records - check.sealed - check.unsealed, check.tuned_states, check.index_rows);
            if (check.clean()) {
              fmt::print("clean\n");
              return int{kExitOk};
            }
            if (!*repair) {
              for (const auto& finding : check.findings) {
                fmt::print("PROBLEM  {}: {}{}\n", finding.path, finding.problem,
                           finding.rerun.empty() ? "" : "\n         " + finding.rerun);
              }
              fmt::print("{} problem(s). `capaboost fsck --repair --results {}` moves them to {}/quarantine/ "
                         "(nothing is deleted); reports and `verify` never use a record that fails its checks\n",
                         check.findings.size(), *results, *results);
              return int{kExitError};
            }
            quarantine(store, check);
            bool left = false;
            for (const auto& finding : check.findings) {
              if (finding.moved_to.empty()) {
                left = true;
                fmt::print("NOT MOVED {}: {}{}\n", finding.path, finding.problem,
                           finding.rerun.empty() ? "" : "\n          " + finding.rerun);
                continue;
              }
              fmt::print("moved    {} -> {}: {}{}\n", finding.path, finding.moved_to, finding.problem,
                         finding.rerun.empty() ? "" : "\n         " + finding.rerun);
            }
            if (check.reindexed || check.index_stale) {
              fmt::print("rebuilt the index from {} record(s)\n", check.reindexed);
            }
            if (!check.quarantine.empty()) {
              fmt::print("quarantine: {}/{} (fsck.txt lists what moved and why)\n", *results, check.quarantine);
            }
            return left ? int{kExitError} : int{kExitOk};
          }};
}

}  // namespace capaboost::harness
