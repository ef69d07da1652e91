// gemmkit ledger: placeholder until its issue lands (the owner replaces this file).
#include <cstdio>

#include "cli/commands.hpp"

namespace gemmkit::cli {

void add_ledger_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("ledger", "ledger (not implemented yet)");
  cmd->allow_extras();
  cmd->callback([] {
    std::fprintf(stderr, "gemmkit ledger: not implemented yet\n");
    exit_code = 3;
  });
}

}  // namespace gemmkit::cli
