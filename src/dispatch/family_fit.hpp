// The ledger learns what each kernel family gets of a machine: measured candidates (written by
// `gemmkit tune --measurements`) are priced by the ledger as the planner prices them, and each
// family's compute and DRAM efficiencies are the pair that makes the predictions track the
// measurements best (the smallest median relative error). The fitted pairs are kept with the
// machine (ledger::FamilyEfficiency) and the planner multiplies them into its coefficients.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dispatch/kernel_config.hpp"
#include "gemmkit/gemm.hpp"
#include "ledger/machine.hpp"

namespace gemmkit::dispatch {

// One timed plan: the problem, the kernel's config, its mode and split count, the median time.
struct Measurement {
  GemmDesc desc;
  double beta = 0;
  std::string kernel;
  KernelConfig config;
  sched::Mode mode = sched::Mode::DataParallel;
  int split = 1;
  double measured_s = 0;
  std::string origin;  // the file it was read from (not written): problems are per file
};

nlohmann::json measurement_json(const Measurement& m);
// Throws std::invalid_argument naming the key it cannot read.
Measurement measurement_from_json(const nlohmann::json& j);
// A file: {"format": "gemmkit-measurements", "device": ..., "rows": [...]}; several files
// concatenate. Throws std::invalid_argument naming the file and the problem.
std::vector<Measurement> read_measurements(const std::string& path);

// The machine's ledger time of a measurement (its fitted efficiencies applied).
double predicted_s(const Measurement& m, const ledger::Machine& machine);

// Each family with at least `min_rows` measurements fitted on `machine` (its own fitted
// efficiencies replaced), by a grid search over [0.25, 1.5] in steps of 0.01 on each figure.
std::vector<ledger::FamilyEfficiency> fit_families(const std::vector<Measurement>& rows,
                                                   const ledger::Machine& machine,
                                                   const std::string& source, int min_rows = 2);

// The second stage, for the ranking: coordinate passes over the fitted families (each moved on
// a grid of +-0.3 in steps of 0.02 around its figures) lowering the mean over problems of how
// much slower the predicted-fastest candidate ran than the fastest, plus half the median
// error. Returns the families moved, their median errors recomputed.
std::vector<ledger::FamilyEfficiency> refine_for_picks(const std::vector<Measurement>& rows,
                                                       const ledger::Machine& machine,
                                                       std::vector<ledger::FamilyEfficiency> fitted,
                                                       int passes = 3);

// The planner's pick against the measurements, per problem (rows of one descriptor and beta):
// the candidate the machine's ledger predicts fastest, against the fastest measured.
struct PickCheck {
  int problems = 0;       // with at least one measurement
  int within_5pct = 0;    // the predicted-fastest measured within 5% of the fastest
  double median_error = 0;  // median |predicted - measured| / measured over every row
  // One line per problem the pick misses: the shape, the pick and the fastest, measured.
  std::vector<std::string> misses;
};
PickCheck check_picks(const std::vector<Measurement>& rows, const ledger::Machine& machine);

}  // namespace gemmkit::dispatch
