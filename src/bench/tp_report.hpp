// What `gemmkit bench --gpus N --tp column|row` reports (docs/DIST.md, "Measuring"): the five
// timed variants, the figures derived from them, the table and the JSON.
//   overlapped  gemmkit::dist with --chunks C          unchunked  the same with 1 chunk
//   baseline    NCCL then cuBLASLt (column), cuBLASLt then NCCL (row), one after the other
//   gemm        the rank's local GEMM alone (gemmkit)  comm  the collective alone (NCCL)
// Each call is timed on every rank with CUDA events after a host barrier; a round's figure is
// the slowest rank's; the variant's time is the median over rounds.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "bench/stats.hpp"
#include "bench/testbed.hpp"
#include "bench/tp_check.hpp"
#include "bench/tp_plan.hpp"

namespace gemmkit::bench {

enum TpVariant : int { kTpOverlapped, kTpUnchunked, kTpBaseline, kTpGemm, kTpComm, kTpVariants };
const char* tp_variant_name(int v);

struct TpTimes {
  Stats ms[kTpVariants];        // over rounds of the slowest rank's ms; n = 0 when not run
  double ratio_baseline = 0.0;  // median over rounds of baseline / overlapped
  int rounds = 0;
};

// Per-round samples (already the max over ranks) to medians and the pair ratio.
TpTimes tp_times(const std::vector<double> (&rounds)[kTpVariants]);

struct TpFigures {
  double flop_per_gpu = 0;          // 2MNK / P
  double tflops[kTpVariants] = {};  // per GPU; NaN for comm
  double serial_ms = 0;             // gemm + comm: nothing overlapped
  double speedup_vs_serial = 0;     // serial / overlapped
  // (serial - overlapped) / min(gemm, comm): the part of the shorter stage hidden (1: the
  // overlapped run takes max(gemm, comm); 0: it takes their sum; < 0: chunking costs more than
  // it hides). NaN when comm < 1% of gemm (one GPU: nothing to hide).
  double overlap_efficiency = 0;
  double chunking_gain = 0;  // unchunked / overlapped
};
TpFigures tp_figures(const TpBenchSpec& s, const TpTimes& t);

struct TpResult {
  TpBenchSpec spec;
  std::vector<std::string> devices;  // by rank
  Disposition disposition = Disposition::NotVerified;
  std::string error;  // Failed: why
  TpCheck check_overlapped, check_unchunked;
  bool timed = false;
  TpTimes times;
  std::string baseline_config;  // cuBLASLt's algorithm, or why it did not run
  int nccl_version = 0;
  nlohmann::json prediction;  // the interconnect ledger's (cli TpFlags::predict), or null
};

nlohmann::json tp_json(const TpResult& r);
void write_tp_table(std::ostream& os, const TpResult& r);

}  // namespace gemmkit::bench
