// Each subcommand of the `gemmkit` command lives in its own cli/cmd_<name>.cpp and adds
// itself to the app here. A command's callback stores its exit code in `exit_code`.
#pragma once
#include <CLI/CLI.hpp>

namespace gemmkit::cli {

extern int exit_code;

void add_run_command(CLI::App& app);
void add_verify_command(CLI::App& app);
void add_ledger_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_explain_command(CLI::App& app);
void add_tune_command(CLI::App& app);
void add_kernels_command(CLI::App& app);

}  // namespace gemmkit::cli
