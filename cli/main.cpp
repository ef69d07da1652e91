// gemmkit: run, verify, bench, ledger, explain, tune, kernels.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/problem_options.hpp"

namespace gemmkit::cli {
int exit_code = 0;
}

int main(int argc, char** argv) {
  CLI::App app{"gemmkit: GEMM for Hopper GPUs and x86 CPUs that explains its own speed"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "gemmkit 0.1.0");
  gemmkit::cli::add_run_command(app);
  gemmkit::cli::add_verify_command(app);
  gemmkit::cli::add_ledger_command(app);
  gemmkit::cli::add_bench_command(app);
  gemmkit::cli::add_explain_command(app);
  gemmkit::cli::add_tune_command(app);
  gemmkit::cli::add_kernels_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const gemmkit::cli::ProblemError& e) {
    // A problem refused before any allocation: the API's Status, exit 1 as a bad lda gives.
    std::fprintf(stderr, "gemmkit: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemmkit: %s\n", e.what());
    return 2;
  }
  return gemmkit::cli::exit_code;
}
