// The prediction: time of one problem with one tile config on one machine, as a
// sum/max of named terms whose coefficients are data (calibration changes data, not code):
//   total = launch + pipeline_fill + overlap(compute + wave_quantization, dram)
// overlap = max (default) or sum.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "gemmkit/gemm.hpp"
#include "ledger/machine.hpp"
#include "ledger/tile_ledger.hpp"

namespace gemmkit::ledger {

struct Coefficients {
  double compute_efficiency = 1.0;  // fraction of the class peak a good kernel sustains
  double dram_efficiency = 1.0;     // fraction of the DRAM bandwidth it sustains
  double launch_s = -1;             // < 0: the machine's launch_s
  double latency_s = -1;            // < 0: the machine's dram_latency_s
  double fill_stages = 1.0;         // stages loaded before the first MMA of a work unit
  bool l2_reuse = true;             // the blocks of one wave share A/B panels through L2/LLC
  bool overlap = true;              // compute and DRAM overlap (max) or serialize (sum)
  bool bandwidth_per_worker =
      true;  // a busy worker (SM, core) draws a share, not all (predict.cpp)
};

struct Term {
  std::string name;  // "compute", "dram", "wave_quantization", "pipeline_fill", "launch"
  double seconds = 0;
  std::string note;
};

struct Prediction {
  std::vector<Term> terms;  // in the order above
  double dram_bytes = 0;    // the DRAM traffic the dram term uses (with L2 reuse if enabled)
  double total_s = 0;
  std::string limiter;  // "compute", "dram" or "launch"
  double term(std::string_view name) const noexcept;
};

Prediction predict(const GemmDesc& desc, double beta, const TileConfig& tile,
                   const Machine& machine, const Coefficients& coef = {});

// One-call form for the bench harness: machine by name or .json path; NaN when the machine is
// unknown or the config is invalid (never throws). Milliseconds.
double predict_ms(const GemmDesc& desc, double beta, const TileConfig& tile,
                  std::string_view machine);
// Same with the machine's default tile config.
double predict_ms(const GemmDesc& desc, double beta, std::string_view machine);

}  // namespace gemmkit::ledger
