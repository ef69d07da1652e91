// The bench harness: for each problem, build a seeded case (U[-1, 1]), allocate the rotation
// sets, verify the baseline and every candidate through the testbed (check_result) before
// timing anything, then time each Passed candidate interleaved with the Passed baseline.
// Rows that did not pass are reported with their disposition and no time.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/cache_size.hpp"
#include "core/describe.hpp"
#include "bench/gpu_runtime.hpp"
#include "bench/measure.hpp"
#include "bench/report.hpp"
#include "bench/testbed.hpp"

namespace gemmkit::bench {

struct BenchProblem {
  std::string name;
  GemmDesc desc;
  double alpha = 1.0, beta = 0.0;
  std::string skip;  // non-empty: report one NotVerified row with this note, time nothing
};

struct Candidate {
  std::string kernel;        // registered name
  std::string config;        // to_string(KernelInfo::config), as the row prints it
  bool reference = false;    // KernelRole::Reference: slow by design
  // A plan of its own (gemmkit tune): Options::split_k and ::schedule of its calls instead of
  // the settings'; the row's prediction is then the caller's (predicted_ms).
  bool own_plan = false;
  int split_k = 0;
  Schedule schedule = Schedule::Auto;
  double predicted_ms = 0;
};

struct HarnessSettings {
  Backend backend = Backend::Cpu;
  std::string baseline = "none";  // "openblas", "cublas" or "none"
  MeasureSettings measure;
  int threads = 0;                // CPU threads for gemmkit and OpenBLAS; 0 = all cores
  int split_k = 0;                // Options::split_k of every gemmkit call
  Schedule schedule = Schedule::Auto;  // Options::schedule of every gemmkit call
  bool batch_invariant = false;        // Options::batch_invariant of every gemmkit call
  bool dynamic_schedule = false;       // Options::dynamic_schedule of every gemmkit call
  int sm_count_target = 0;             // Options::sm_count_target of every gemmkit call
  std::uint64_t seed = 1;
  CheckPolicy check;
  bool warm = false;              // no rotation, no flush (self-tests only)
  std::int64_t llc_bytes = 0;     // 0: detect (CPU: host_llc, GPU: the device's L2)
  std::int64_t rotate_budget_bytes = 0;  // 0: 2 GiB on the host, min(16 GiB, free/3) on a GPU
  double max_call_ms = 60000;     // skip a kernel whose projected call time exceeds this
  double max_reference_flop = 2e9;  // skip Reference-role kernels above this (2MNK * batch)
  std::string ledger_machine;     // "" = automatic ("host" on CPU, by device name on GPU)
  bool cublas_fp32_reduction = false;  // cuBLASLt restricted to split-K reductions in fp32
};

class Harness {
 public:
  explicit Harness(HarnessSettings s);
  ~Harness();
  // Opens the GPU stream (CUDA backend) and reads the cache size. Not ok: nothing can be run.
  Status init();
  std::vector<Row> run(const BenchProblem& p, const std::vector<Candidate>& candidates);
  // Machine, software and settings of the run (JSON "context").
  nlohmann::json context() const;
  const HarnessSettings& settings() const { return s_; }

 private:
  struct Verified;
  Verified verify(Provider& p, const HostCase& hc, OperandSets& sets, const MeasureTarget& t);
  void fill_row(Row* r, const BenchProblem& p, const GemmDesc& d) const;
  // The ledger's time (ms) for `kernel` (empty: the planner's pick) as the planner launches it:
  // its config, mode and split, on the run's ledger machine. NaN without either.
  double predict(const GemmDesc& d, double beta, const std::string& kernel) const;

  HarnessSettings s_;
  CacheSize llc_;
  gpu::DeviceInfo device_;
  std::unique_ptr<gpu::Stream> stream_;
  std::string ledger_machine_;
  std::map<std::string, double> ms_per_flop_;  // per kernel: latest rate seen (time guard)
};

// "a/b/c/d/acc" and "A=col B=row^T C=col" as the rows write them.
using core::dtypes_string;
std::string layouts_string(const GemmDesc& d);
// Minimum bytes of a call: A and B read once, C read if beta != 0, D written once.
double min_bytes(const GemmDesc& d, double beta);

}  // namespace gemmkit::bench
