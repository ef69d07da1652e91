// The planner: enumerate candidates (production kernel x mode x split count) -> can_implement
// -> the ledger's prediction on the planning machine -> the fastest (ties: the higher
// priority). Ladder rungs and the reference path are fallbacks only. Say why when asked.
#pragma once
#include <string>
#include <vector>

#include "dispatch/launch_plan.hpp"
#include "dispatch/registry.hpp"
#include "dispatch/tune_cache.hpp"
#include "ledger/machine.hpp"
#include "ledger/predict.hpp"

namespace gemmkit::dispatch {

// Predictions within this fraction of the fastest are ties (below the model's resolution):
// the higher priority among them wins. At 8192^3 bf16 the h200 model puts the 128x192 sm90
// tile 1.1% ahead of 128x256, which measured 8% faster (H200, 2026-12-01): 3%.
inline constexpr double kTieTolerance = 0.03;

// One (kernel, mode, split) the planner considered.
struct Candidate {
  const KernelInfo* kernel = nullptr;
  sched::Mode mode = sched::Mode::DataParallel;
  int split = 1;
  Status status;                  // why it was refused (can_implement, or not modelled)
  ledger::Prediction prediction;  // only when status is Success
  double waves = 0, tail_efficiency = 1;
  double predicted_s() const noexcept { return prediction.total_s; }
};

// The split counts worth trying for a config on a machine with `workers` parallel units (SMs,
// CPU threads): 1 for data-parallel; for split-K the powers of two and floor(workers / tiles)
// with tiles * split <= workers and split <= k_iters / 4 (at least 4 BK steps a piece); none
// for a rows_per_sm config (such a kernel cuts K itself: only a forced count reaches it).
std::vector<int> split_counts(const GemmDesc& d, const KernelConfig& c, sched::Mode mode,
                              int workers);

// The ledger's prediction for a config run in a scheduler mode with `split` K pieces (0 and 1:
// none) on a machine, the ISA's share of the peak applied. Throws std::invalid_argument for a
// config the ledger cannot read. The planner, `explain` and `bench` (ledger_pred_ms) all
// predict through it.
ledger::Prediction predict_config(const GemmDesc& d, double beta, const KernelConfig& c,
                                  sched::Mode mode, int split, const ledger::Machine& machine);
// The fitted figures (ledger::FamilyEfficiency) predict_config applies to a config on a machine
// for one problem: its own family's ("wgmma 64x128 partial"), else its whole tile's, else none.
const ledger::FamilyEfficiency* family_efficiency(const ledger::Machine& machine,
                                                  const KernelConfig& c, const GemmDesc& d);

// Every candidate of `kernels` on `machine` (its sm_count is the worker count), predicted for
// `beta`; `forced_split` > 0 (Options::split_k) keeps only that count (1: data-parallel, > 1:
// split-K). Sorted: the viable ones fastest first, then the refused ones; the candidates
// within 1% of the fastest are ties, ordered by priority (higher first; then by time). No CUDA
// device is needed: the test of the ranking passes kernels and a builtin machine.
// `schedule` other than Auto (Options::schedule) keeps only candidates of that mode.
std::vector<Candidate> rank_candidates(const GemmDesc& d, double beta,
                                       const std::vector<const KernelInfo*>& kernels,
                                       const ledger::Machine& machine, int forced_split = 0,
                                       Schedule schedule = Schedule::Auto);

// The scheduler mode of a Schedule other than Auto.
sched::Mode mode_of(Schedule s) noexcept;

struct Plan {
  Status status;                   // Success when launch.kernel is set
  Backend backend = Backend::Cpu;  // the backend actually chosen
  LaunchPlan launch;
  std::vector<Candidate> candidates;  // only with reasons (`explain`)
  std::vector<std::string> reasons;   // one line per decision (only when asked: `explain`)
  // The tuning cache's entry for this problem (tune_cache.hpp), when the planner looked one up
  // (no kernel forced, no split count or schedule requested), and whether the plan is it.
  std::optional<TuneEntry> tuned;
  bool from_tune_cache = false;
  // Under Options::batch_invariant: the M the plan was ranked for (kBatchInvariantM); else 0.
  std::int64_t planned_m = 0;
};

// The machine model the planner, `bench` (ledger_pred_ms) and `explain` reason with for a
// backend (no measurement on this path). CUDA: by the current device's name (H100: h100-measured;
// otherwise h200-measured) with the device's SM count, read once.
const ledger::Machine& planning_machine(Backend b);
// A CPU machine limited to `threads` threads (0: all cores): fewer workers, the peak scaled.
// Other machines are returned as they are.
ledger::Machine limit_threads(ledger::Machine m, int threads);
// planning_machine(b) limited to Options::threads.
ledger::Machine planning_machine(Backend b, int threads);
// A GPU machine limited to `sms` SMs (0: all): fewer workers, the peaks scaled, the memory
// figures kept (a part of the SMs still draws most of the bandwidth). Other machines as they are.
ledger::Machine limit_sms(ledger::Machine m, int sms);
// A machine limited as Options::threads and Options::sm_count_target ask.
ledger::Machine limited_by(ledger::Machine m, const Options& opt);
// planning_machine(b) limited by opt.
ledger::Machine planning_machine(Backend b, const Options& opt);

// The backend a call runs on: the requested one; for Auto, CUDA when a device is usable and D
// is not host memory (args may be null), else the CPU.
Backend resolve_backend(const Options& opt, const GemmArgs* args) noexcept;

// Expects a validated descriptor with defaulted lds. `args` (may be null) lets Auto look at
// where the pointers live: device memory -> CUDA, host memory -> CPU, and gives beta.
// Options::batch_invariant ranks the problem with M = kBatchInvariantM among the M-invariant
// kernels' data-parallel modes, skips the tuning cache, and refuses a problem the chosen kernel
// cannot run at its own M (another kernel would give its rows other bits).
// A measured winner in the tuning cache (tune_cache.hpp) replaces the ranking's pick when no
// kernel is forced and neither Options::split_k nor Options::schedule is set, and the kernel
// is registered for the backend, has the mode, and can_implement accepts the problem.
// `with_reasons` fills Plan::reasons and Plan::candidates; gemm() leaves it off so the hot path
// formats no strings. Not cached: see plan_cache.hpp.
Plan make_plan(const GemmDesc& d, const Options& opt, const GemmArgs* args = nullptr,
               bool with_reasons = false);

}  // namespace gemmkit::dispatch
