// gemmkit bench: placeholder until its issue lands (the owner replaces this file).
#include <cstdio>

#include "cli/commands.hpp"

namespace gemmkit::cli {

void add_bench_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("bench", "bench (not implemented yet)");
  cmd->allow_extras();
  cmd->callback([] {
    std::fprintf(stderr, "gemmkit bench: not implemented yet\n");
    exit_code = 3;
  });
}

}  // namespace gemmkit::cli
