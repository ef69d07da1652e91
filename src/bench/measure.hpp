// Timing one provider, or a candidate and its baseline interleaved (BENCH.md items 2, 4, 6).
//   Clock: host steady clock (CPU), CUDA events around each call, or CUDA-graph replays of
//   `calls_per_sample` back-to-back calls (GPU calls under ~50 us, where launch overhead would
//   otherwise dominate). Candidate and baseline always use the same clock and count.
//   Counts: warm-up and repetitions are given in ms and turned into counts from an estimate.
//   Pairs: samples alternate candidate/baseline (order flipped every pair); the ratio is the
//   median of the per-pair ratios baseline/candidate.
#pragma once
#include <string>
#include <vector>

#include "bench/gpu_runtime.hpp"
#include "bench/operand_sets.hpp"
#include "bench/provider.hpp"
#include "bench/rotation.hpp"
#include "bench/stats.hpp"

namespace gemmkit::bench {

enum class ClockKind { Steady, CudaEvent, CudaGraph };

struct MeasureSettings {
  double warmup_ms = 25.0;
  double rep_ms = 100.0;
  int min_reps = 3;         // samples (pairs) at least, however long a call is
  int max_reps = 100000;
  double graph_below_ms = 0.05;   // GPU: graphs when the shorter call is under this
  double graph_sample_ms = 1.0;   // GPU: target time of one graph replay
};

// Where the calls go: the host, or a CUDA stream (with flush scratch when the plan flushes).
struct MeasureTarget {
  bool device = false;
  gpu::Stream* stream = nullptr;  // device only
  void* flush_scratch = nullptr;  // Flush mode: host or device buffer of plan.flush_bytes
};

struct Measurement {
  Status status;                // not ok: the timing itself failed (message says where)
  Stats candidate, baseline;    // per-call milliseconds
  std::vector<double> candidate_samples, baseline_samples, ratios;
  double ratio = 0.0;           // median pair ratio; NaN without baseline
  ClockKind clock = ClockKind::Steady;
  int calls_per_sample = 1;
  std::string describe() const;  // "steady_clock", "cuda_event", "cuda_graph x64"
};

// Times `cand` (and `base`, interleaved, when not null) on `sets` with the rotation `plan`.
// `estimate_ms` (> 0) is a first guess of one call of each (e.g. the verification call);
// short calls are re-estimated.
Measurement measure(Provider& cand, Provider* base, const OperandSets& sets,
                    const RotationPlan& plan, const MeasureTarget& target,
                    const MeasureSettings& settings, double cand_estimate_ms,
                    double base_estimate_ms);

// Times one call of `p` on set `i` with the target's single-call clock (for estimates and the
// verification call): steady clock on the host, CUDA events on a stream.
Status time_one_call(Provider& p, const OperandSet& s, const MeasureTarget& target, double* ms);

}  // namespace gemmkit::bench
