// The `gemmkit bench --gpus N --tp ...` command: flags, spec, prediction, output (tp_bench.hpp).
#include "cli/tp_bench.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "gemmkit/dist.hpp"

namespace gemmkit::cli {

void add_tp_bench_flags(CLI::App* cmd, TpFlags* tp) {
  cmd->add_option("--gpus", tp->gpus,
                  "tensor-parallel GEMM over GPUs 0..N-1 (one thread and NCCL communicator each); "
                  "--m --n --k are the whole problem");
  cmd->add_option("--tp", tp->tp,
                  "with --gpus: column (all-gather A along M) or row (K shards, "
                  "partial sums reduced)")
      ->capture_default_str();
  cmd->add_option("--chunks", tp->chunks, "with --gpus: M chunks of the overlapped run")
      ->capture_default_str();
  cmd->add_option("--reduce", tp->reduce, "with --tp row: reduce-scatter or all-reduce")
      ->capture_default_str();
  cmd->add_option("--tp-machine", tp->machine,
                  "with --gpus: machine of the ledger's TP prediction (default by GPU 0's name: "
                  "h200 or h100-sxm)");
}

int tp_bench_command(const TpFlags& tp, const ProblemOptions& problem, bool ab_given, bool d_given,
                     const TpRunSettings& rs, const std::string& format, const std::string& output,
                     bool machine_given) {
  if (format != "table" && format != "json")
    throw CLI::ValidationError("--format", "with --gpus: table or json");
  if (tp.tp != "column" && tp.tp != "row")
    throw CLI::ValidationError("--tp", "column or row, not '" + tp.tp + "'");
  if (tp.reduce != "reduce-scatter" && tp.reduce != "all-reduce")
    throw CLI::ValidationError("--reduce", "reduce-scatter or all-reduce, not '" + tp.reduce + "'");
  if (problem.beta != 0.0)
    throw CLI::ValidationError("--beta", "the tensor-parallel bench runs beta = 0");
  const GemmDesc d = problem.desc();  // sizes and dtypes, validated (ProblemError)
  bench::TpBenchSpec spec;
  spec.gpus = tp.gpus;
  spec.split = tp.tp == "column" ? bench::TpSplit::Column : bench::TpSplit::Row;
  spec.all_reduce = tp.reduce == "all-reduce";
  spec.chunks = tp.chunks;
  spec.m = d.m, spec.n = d.n, spec.k = d.k;
  spec.alpha = problem.alpha;
  if (ab_given) {
    if (d.a.dtype != d.b.dtype)
      throw CLI::ValidationError("--dtype-b",
                                 "the tensor-parallel bench needs A and B of one dtype");
    spec.dtype_ab = d.a.dtype;
  }
  if (d_given) spec.dtype_d = d.d.dtype;
  if (!dist::built_with_nccl()) {
    std::fprintf(stderr,
                 "gemmkit bench --gpus: built without NCCL (gemmkit_dist needs the CUDA backend "
                 "and nccl.h / libnccl at configure time)\n");
    return 2;
  }
  if (const bench::TpSpecError e = bench::check_tp_spec(spec, visible_gpus()); !e.ok())
    throw CLI::ValidationError(e.flag, e.why);

  bench::TpResult r;
  run_tp_bench(spec, rs, &r);
  TpFlags t = tp;
  if (!machine_given)
    t.machine =
        !r.devices.empty() && r.devices[0].find("H200") != std::string::npos ? "h200" : "h100-sxm";
  try {
    r.prediction = t.predict(bench::tp_desc(spec, spec.m, spec.n, spec.k), 0.0);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemmkit bench: no ledger prediction: %s\n", e.what());
  }

  std::ostringstream os;
  if (format == "json")
    os << nlohmann::json{{"tensor_parallel_bench", bench::tp_json(r)}}.dump(2) << "\n";
  else
    bench::write_tp_table(os, r);
  if (!output.empty()) {
    std::ofstream f(output);
    if (!f) {
      std::fprintf(stderr, "gemmkit bench: cannot write %s\n", output.c_str());
      return 2;
    }
    f << os.str();
  } else {
    std::fputs(os.str().c_str(), stdout);
  }
  return r.disposition == bench::Disposition::Passed ? 0 : 1;
}

}  // namespace gemmkit::cli
