// gemmkit bench: verified, rotated, interleaved timing of registered kernels against a
// baseline in the same process (BENCH.md). See docs/bench.md.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "bench/gpu_runtime.hpp"
#include "bench/harness.hpp"
#include "bench/problem_check.hpp"
#include "bench/progress.hpp"
#include "bench/report.hpp"
#include "cli/commands.hpp"
#include "cli/problem_list.hpp"
#include "cli/problem_options.hpp"
#include "cli/tp_bench.hpp"
#include "dispatch/planner.hpp"
#include "dispatch/registry.hpp"

namespace gemmkit::cli {

namespace {

struct BenchOptions {
  ProblemOptions problem;
  std::string suite;
  std::string baseline = "auto";
  double warmup_ms = 25, rep_ms = 100;
  int min_reps = 3;
  int threads = 0;
  std::string format = "table";
  std::string output;
  bool quiet = false;
  bool quick = false;
  bool warm = false;
  bool copy_bandwidth = false;
  bool cublas_fp32_reduction = false;
  double max_call_ms = 60000;
  double max_reference_flop = 2e9;
  double max_reference_check_flop = 2e9;
  std::int64_t llc_bytes = 0;
  std::string ledger_machine;
  std::vector<std::string> compare;
};

// The candidates of one problem: the planner's pick, or registry kernels matching --kernel.
// With none, *why says why (the planner's status and the reasons its kernels gave).
std::vector<bench::Candidate> candidates_for(const GemmDesc& desc, Backend backend,
                                             const std::string& pattern, const Options& req,
                                             std::string* why) {
  std::vector<bench::Candidate> out;
  const auto add = [&](const dispatch::KernelInfo& k) {
    out.push_back(
        {k.name, dispatch::to_string(k.config), k.role == dispatch::KernelRole::Reference});
  };
  if (pattern.empty()) {
    Options o;
    o.backend = backend;
    o.split_k = req.split_k;
    o.schedule = req.schedule;
    o.batch_invariant = req.batch_invariant;
    const dispatch::Plan plan = dispatch::make_plan(with_default_lds(desc), o);
    if (plan.status && plan.launch.kernel)
      add(*plan.launch.kernel);
    else
      *why = "no kernel: " + bench::why_no_kernel(desc, o);
    return out;
  }
  const bool all = pattern == "all";
  for (const dispatch::KernelInfo* k : dispatch::registry().match(pattern)) {
    if (k->backend != backend) continue;
    if (all && k->role == dispatch::KernelRole::Reference) continue;
    add(*k);
  }
  if (out.empty())
    *why =
        "no registered " + std::string(backend_name(backend)) + " kernel matches '" + pattern + "'";
  return out;
}

int run_compare(const BenchOptions& o) {
  nlohmann::json j[2];
  for (int i = 0; i < 2; ++i) {
    std::ifstream f(o.compare[static_cast<std::size_t>(i)]);
    if (!f) {
      std::fprintf(stderr, "gemmkit bench --compare: cannot read %s\n",
                   o.compare[static_cast<std::size_t>(i)].c_str());
      return 2;
    }
    try {
      f >> j[i];
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gemmkit bench --compare: %s: %s\n",
                   o.compare[static_cast<std::size_t>(i)].c_str(), e.what());
      return 2;
    }
  }
  bench::CompareResult r;
  std::string err;
  if (!bench::compare_runs(j[0], j[1], &r, &err)) {
    std::fprintf(stderr, "gemmkit bench --compare: %s\n", err.c_str());
    return 2;
  }
  std::ostringstream os;
  bench::write_compare(os, r);
  std::fputs(os.str().c_str(), stdout);
  return r.lines.empty() ? 1 : 0;
}

// Two thread pools share the cores when gemmkit's OpenMP kernels and OpenBLAS alternate: with
// libgomp's default (active) waiting, the idle pool spins through the other's call. Measured on
// the 2-core VM: gemmkit 256^3 took 44 ms next to OpenBLAS instead of 0.26 ms. libgomp reads
// OMP_WAIT_POLICY only at start-up, so the command re-executes itself once with
// OMP_WAIT_POLICY=passive unless the user chose a policy. OpenBLAS's own workers do the same
// to gemmkit: after each call they spin for about 0.1 s on the other core (1025^3 on two
// threads: 6.4 ms alone, 12.0 ms right after a cblas_sgemm), unless OPENBLAS_THREAD_TIMEOUT is
// small; OpenBLAS reads it when it is loaded, so it is set for the re-executed command too
// (4: the shortest spin; OpenBLAS's own times do not change: 1025^3 6.70 vs 6.76 ms).
// Returns only if it did not re-exec.
void reexec_with_passive_openmp() {
  if ((std::getenv("OMP_WAIT_POLICY") && std::getenv("OPENBLAS_THREAD_TIMEOUT")) ||
      std::getenv("GEMMKIT_BENCH_REEXEC"))
    return;
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  for (std::size_t i = 0; i < all.size();) {
    const std::size_t end = all.find('\0', i);
    args.push_back(all.substr(i, end == std::string::npos ? std::string::npos : end - i));
    if (end == std::string::npos) break;
    i = end + 1;
  }
  if (args.empty()) return;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  setenv("OMP_WAIT_POLICY", "passive", 0);  // 0: a policy the user chose stays
  setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);
  setenv("GEMMKIT_BENCH_REEXEC", "1", 1);
  std::fflush(nullptr);
  execv("/proc/self/exe", argv.data());
  std::fprintf(stderr,
               "gemmkit bench: could not re-execute with OMP_WAIT_POLICY=passive and "
               "OPENBLAS_THREAD_TIMEOUT=4; CPU ratios against OpenBLAS may be skewed by "
               "spinning threads\n");
}

int run_bench(const BenchOptions& o, CLI::App* cmd) {
  if (o.compare.size() == 2) return run_compare(o);
  Backend backend = o.problem.backend_value();
  if (backend == Backend::Auto) backend = cuda_available() ? Backend::Cuda : Backend::Cpu;
  if (backend == Backend::Cpu) reexec_with_passive_openmp();
  std::string baseline = o.baseline;
  if (baseline == "auto") baseline = backend == Backend::Cuda ? "cublas" : "openblas";
  if (baseline != "openblas" && baseline != "cublas" && baseline != "none")
    throw CLI::ValidationError("--baseline", "must be openblas, cublas, none or auto");
  if (o.format != "table" && o.format != "csv" && o.format != "json")
    throw CLI::ValidationError("--format", "must be table, csv or json");

  // Problems: a suite, or the one shape of --m --n --k.
  const std::vector<bench::BenchProblem> problems =
      sweep_problems(o.problem, o.suite, backend, cmd->count("--dtype") > 0);

  bench::HarnessSettings hs;
  hs.backend = backend;
  hs.baseline = baseline;
  hs.measure.warmup_ms = o.quick ? 5 : o.warmup_ms;
  hs.measure.rep_ms = o.quick ? 20 : o.rep_ms;
  hs.measure.min_reps = o.min_reps;
  hs.threads = o.threads;
  // --split-k, --schedule, --batch-invariant (validated here)
  const Options request = o.problem.options();
  hs.split_k = request.split_k;
  hs.schedule = request.schedule;
  hs.batch_invariant = request.batch_invariant;
  hs.dynamic_schedule = request.dynamic_schedule;
  hs.sm_count_target = request.sm_count_target;
  hs.seed = o.problem.seed;
  hs.check.max_reference_flop = o.max_reference_check_flop;
  hs.warm = o.warm;
  hs.llc_bytes = o.llc_bytes;
  hs.max_call_ms = o.max_call_ms;
  hs.max_reference_flop = o.max_reference_flop;
  hs.ledger_machine = o.ledger_machine;
  hs.cublas_fp32_reduction = o.cublas_fp32_reduction;
  bench::Harness harness(hs);
  if (Status s = harness.init(); !s) {
    std::fprintf(stderr, "gemmkit bench: %s\n", to_string(s).c_str());
    return 1;
  }
  if (o.copy_bandwidth) {  // the ceiling of memory-bound rows, measured in the same run
    double bps = 0;
    const Status s = bench::gpu::copy_bandwidth(std::size_t{1} << 30, 10, &bps);
    if (s)
      std::printf("device copy bandwidth: %.1f GB/s (1 GiB device to device, read + write, "
                  "median of 10)\n", bps * 1e-9);
    else
      std::fprintf(stderr, "gemmkit bench: --copy-bandwidth: %s\n", to_string(s).c_str());
  }

  // Progress weight of a problem: its flop plus a fixed part for the per-problem work that
  // does not scale with flop (fills, verification, rotation sets).
  const auto work = [](const bench::BenchProblem& p) {
    return 2.0 * p.desc.m * p.desc.n * p.desc.k * p.desc.batch + 2e9;
  };
  double total_work = 0;
  for (const auto& p : problems) total_work += work(p);
  bench::Progress progress(!o.quiet, static_cast<int>(problems.size()), total_work);
  std::vector<bench::Row> rows;
  for (const bench::BenchProblem& p : problems) {
    progress.start(p.name + " " + bench::dtypes_string(p.desc));
    const auto row_without_kernel = [&](const std::string& note) {
      bench::Row none;
      none.problem = p.name;
      none.provider = "gemmkit";
      none.m = p.desc.m, none.n = p.desc.n, none.k = p.desc.k, none.batch = p.desc.batch;
      none.dtypes = bench::dtypes_string(p.desc);
      none.layouts = bench::layouts_string(p.desc);
      none.note = note;
      return none;
    };
    // Refused before any buffer exists when the problem does not fit in free memory.
    const Status fits =
        bench::check_memory(bench::bench_memory(p.desc, backend == Backend::Cuda, hs.check));
    if (!fits) {
      if (problems.size() == 1) throw ProblemError(fits);
      rows.push_back(row_without_kernel("refused: " + to_string(fits)));
      progress.done(work(p));
      continue;
    }
    std::string why;
    const auto cands = candidates_for(p.desc, backend, o.problem.kernel, request, &why);
    std::vector<bench::Row> r = harness.run(p, cands);
    if (cands.empty() && p.skip.empty()) r.insert(r.begin(), row_without_kernel(why));
    rows.insert(rows.end(), r.begin(), r.end());
    progress.done(work(p));
  }
  progress.finish();

  std::ostringstream os;
  if (o.format == "csv") bench::write_csv(os, rows);
  else if (o.format == "json") bench::write_json(os, harness.context(), rows);
  else bench::write_table(os, rows);
  if (!o.output.empty()) {
    std::ofstream f(o.output);
    if (!f) {
      std::fprintf(stderr, "gemmkit bench: cannot write %s\n", o.output.c_str());
      return 2;
    }
    f << os.str();
  } else {
    std::fputs(os.str().c_str(), stdout);
  }
  const bench::Summary s = bench::summarize_rows(rows);
  if (!o.quiet && (o.format != "table" || !o.output.empty()))
    std::fprintf(stderr, "gemmkit bench: %s\n", bench::summary_text(s).c_str());
  return s.incorrect + s.failed > 0 ? 1 : 0;
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* cmd = app.add_subcommand(
      "bench", "verified, cache-cold, interleaved timing against a baseline (docs/bench.md)");
  o->problem.add_to(cmd);
  cmd->add_option("--suite", o->suite, "shape suite: square odd llm xwt decode splitk moe cpu, or a .json path");
  cmd->add_option("--baseline", o->baseline, "openblas, cublas, none or auto (by backend)")
      ->capture_default_str();
  cmd->add_option("--warmup-ms", o->warmup_ms, "warm-up time per row")->capture_default_str();
  cmd->add_option("--rep-ms", o->rep_ms, "timed repetitions per row")->capture_default_str();
  cmd->add_option("--min-reps", o->min_reps, "timed samples (pairs) at least")
      ->capture_default_str();
  cmd->add_option("--threads", o->threads, "CPU threads for gemmkit and OpenBLAS (0: all)")
      ->capture_default_str();
  cmd->add_option("--format", o->format, "table, csv or json")->capture_default_str();
  cmd->add_option("--output,-o", o->output, "write the result to FILE instead of stdout");
  cmd->add_flag("--quiet,-q", o->quiet, "no progress line, no summary on stderr");
  cmd->add_flag("--quick", o->quick, "warm-up 5 ms, repetitions 20 ms (smoke runs)");
  cmd->add_option("--max-call-ms", o->max_call_ms,
                  "skip a kernel whose projected call (from a smaller shape) exceeds this")
      ->capture_default_str();
  cmd->add_option("--max-reference-flop", o->max_reference_flop,
                  "skip reference-role kernels above this 2MNK*batch")
      ->capture_default_str();
  cmd->add_option("--max-check-flop", o->max_reference_check_flop,
                  "full fp64 check up to this 2MNK*batch, probe vectors above")
      ->capture_default_str();
  cmd->add_option("--llc-bytes", o->llc_bytes, "last-level cache to defeat (0: detect)");
  cmd->add_flag("--warm", o->warm, "no rotation, no flush (for harness self-tests)");
  cmd->add_flag("--cublas-fp32-reduction", o->cublas_fp32_reduction,
                "cuBLASLt may only pick split-K algorithms that reduce in fp32 (its output-type "
                "reductions fail the fp32-accumulation bound on some shapes)");
  cmd->add_flag("--copy-bandwidth", o->copy_bandwidth,
                "first measure the device's copy bandwidth (CUDA), the bound of memory-bound rows");
  cmd->add_option("--ledger-machine", o->ledger_machine,
                  "machine of the ledger prediction (default: host / by GPU name)");
  cmd->add_option("--compare", o->compare, "A.json B.json: per-row speedup and geometric mean")
      ->expected(2);
  auto tp = std::make_shared<TpFlags>();  // --gpus N --tp ...: cli/tp_bench.hpp
  add_tp_bench_flags(cmd, tp.get());
  cmd->callback([o, cmd, tp] {
    if (cmd->count("--gpus") == 0) {
      exit_code = run_bench(*o, cmd);
      return;
    }
    if (!o->suite.empty()) throw CLI::ValidationError("--suite", "not with --gpus (one shape)");
    const bool ab_given = cmd->count("--dtype") + cmd->count("--dtype-a") +
                              cmd->count("--dtype-b") > 0;
    const bool d_given = cmd->count("--dtype") + cmd->count("--dtype-c") +
                             cmd->count("--dtype-d") > 0;
    const TpRunSettings rs{.warmup_ms = o->quick ? 5 : o->warmup_ms,
                           .rep_ms = o->quick ? 20 : o->rep_ms,
                           .min_reps = o->min_reps,
                           .seed = o->problem.seed,
                           .sm_count_target = o->problem.sm_count};
    exit_code = tp_bench_command(*tp, o->problem, ab_given, d_given, rs, o->format, o->output,
                                 cmd->count("--tp-machine") > 0);
  });
}

}  // namespace gemmkit::cli
