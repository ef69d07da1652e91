// `gemmkit bench --gpus N --tp column|row [--chunks C] [--reduce reduce-scatter|all-reduce]`:
// tensor-parallel GEMM over GPUs 0..N-1, one host thread per GPU and one NCCL communicator
// each (ncclCommInitAll), verified against the single-GPU gemmkit GEMM of the whole problem and
// timed against the unoverlapped NCCL + cuBLASLt sequence in the same run (docs/DIST.md,
// "Measuring"). The plan, check and report are host code in src/bench/tp_*.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "bench/tp_report.hpp"
#include "cli/problem_options.hpp"
#include "cli/tp_explain.hpp"

namespace gemmkit::cli {

// The bench's --gpus --tp --chunks --reduce --tp-machine (stored in TpFlags, whose predict()
// gives the ledger's view; --tp-machine defaults to h200 or h100-sxm by GPU 0's name).
void add_tp_bench_flags(CLI::App* cmd, TpFlags* tp);

struct TpRunSettings {
  double warmup_ms = 25, rep_ms = 100;
  int min_reps = 3;
  std::uint64_t seed = 1;
  // --sm-count: Options::sm_count_target of the overlapped run's GEMMs (the SMs left to NCCL's
  // kernels); 0: every SM.
  int sm_count_target = 0;
};

// GPUs this process sees (0 without CUDA or without a device).
int visible_gpus();

// Runs the plan on GPUs 0..P-1 and fills *out (verification, then timing only if every rank
// passed). Without NCCL: Failed, "built without NCCL".
void run_tp_bench(const bench::TpBenchSpec& spec, const TpRunSettings& rs, bench::TpResult* out);

// The command: flags to a spec (A and B bf16 unless --dtype/-a/-b, D bf16 unless
// --dtype/-c/-d) (throws CLI::ValidationError naming a bad flag), the run, the
// table or JSON (to `output` when not empty). Returns the exit code: 0 Passed, 1 otherwise.
int tp_bench_command(const TpFlags& tp, const ProblemOptions& problem, bool ab_given, bool d_given,
                     const TpRunSettings& rs, const std::string& format, const std::string& output,
                     bool machine_given);

}  // namespace gemmkit::cli
