// gemmkit tune: not implemented yet (the tuning cache comes with the planner issue).
#include <cstdio>

#include "cli/commands.hpp"

namespace gemmkit::cli {

void add_tune_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("tune", "search kernel configs for a shape (not implemented yet)");
  cmd->allow_extras();
  cmd->callback([] {
    std::fprintf(stderr, "gemmkit tune: not implemented yet\n");
    exit_code = 3;
  });
}

}  // namespace gemmkit::cli
