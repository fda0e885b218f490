// `capaboost gallery [--results DIR] [--out FILE] [--experiments DIR]`: results/README.md, every
// curated folder on one page (report/gallery.h). The Makefile's curate targets run it after writing a
// folder; a folder it cannot read is listed with a warning (here on stderr too), not an error, so that
// curating one spec never fails on another spec's folder.

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "commands/commands.h"
#include "report/gallery.h"

namespace capaboost::harness {
namespace {

namespace fs = std::filesystem;

// The path from the page's folder to the results folder, as the page's links need it ("" when the
// page is in the results folder itself).
std::string link_prefix(const fs::path& results, const fs::path& out) {
  const fs::path from = fs::absolute(out).lexically_normal().parent_path();
  const fs::path relative = fs::absolute(results).lexically_normal().lexically_relative(from);
  if (relative.empty() || relative == ".") return "";
  return relative.generic_string() + "/";
}

}  // namespace

Command gallery_command(CLI::App& app) {
  auto* sub = app.add_subcommand("gallery", "Write results/README.md: every curated folder's figures and claims on one page");
  struct Options {
    std::string results = "results";
    std::string out;
    std::string experiments = "experiments";
  };
  auto options = std::make_shared<Options>();
  sub->add_option("--results", options->results, "the results folder whose <profile>/<spec>/ folders are shown")
      ->capture_default_str();
  sub->add_option("--out", options->out, "the page to write (default: <results>/README.md)");
  sub->add_option("--experiments", options->experiments, "the specs' folder (titles, which are paper artifacts)")
      ->capture_default_str();
  return {sub, [options] {
            const fs::path out = options->out.empty() ? fs::path(options->results) / "README.md" : fs::path(options->out);
            const Gallery gallery = read_gallery(options->results, options->experiments, options->results);
            int unread = 0;
            for (const auto& folder : gallery.folders) {
              if (folder.problem.empty()) continue;
              std::cerr << "capaboost gallery: warning: " << folder.problem << "\n";
              ++unread;
            }
            const std::string page = render_gallery(gallery, link_prefix(options->results, out));
            // Written beside and renamed over: a reader (or git) never sees half a page.
            const fs::path partial = out.string() + ".partial";
            {
              std::ofstream file(partial, std::ios::binary);
              file << page;
              if (!file) throw std::runtime_error(fmt::format("{}: cannot write", partial.string()));
            }
            fs::rename(partial, out);
            fmt::print("wrote {}: {} curated folder(s){}\n", out.string(), gallery.folders.size(),
                       unread ? fmt::format(", {} not read (warnings above)", unread) : "");
            return int{kExitOk};
          }};
}

}  // namespace capaboost::harness
