// The per-family efficiency fit: measurements priced on a machine whose families sustain known
// fractions are fitted back to those fractions; the planner's prediction applies a machine's
// fitted figures to its family only; measurements and machines round-trip through JSON; bad
// files are refused with the key or figure named.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "dispatch/family_fit.hpp"
#include "dispatch/planner.hpp"
#include "ledger/machine.hpp"

namespace gemmkit::dispatch {
namespace {

const char* kGemv =
    "8x2x8 stages=1 threads=256 warpgroups=0 cluster=1x1 modes=data_parallel raster=0 "
    "swizzle=none isa=cuda_simt";
const char* kRows =
    "16x32x512 stages=3 threads=288 warpgroups=0 cluster=1x1 modes=data_parallel|split_k "
    "raster=0 swizzle=128B isa=mma_sync rows=per_sm";
const char* kWgmma =
    "128x256x64 stages=4 threads=384 warpgroups=3 cluster=1x1 modes=data_parallel|split_k "
    "raster=8 swizzle=128B isa=wgmma";

GemmDesc bf16(std::int64_t m, std::int64_t n, std::int64_t k) {
  GemmDesc d;
  d.m = m, d.n = n, d.k = k;
  for (MatrixDesc* x : {&d.a, &d.b, &d.c, &d.d}) x->dtype = DType::BF16;
  return with_default_lds(d);
}

// Decode rows for the two DRAM-bound families, squares and prefill for the wgmma tile.
std::vector<Measurement> synthetic(const ledger::Machine& truth) {
  std::vector<Measurement> out;
  const auto add = [&](const char* cfg, std::int64_t m, std::int64_t n, std::int64_t k) {
    Measurement x;
    x.desc = bf16(m, n, k);
    x.kernel = cfg;
    x.config = parse_kernel_config(cfg);
    x.measured_s = 1;
    x.measured_s = predicted_s(x, truth);
    out.push_back(x);
  };
  for (std::int64_t m : {1, 4, 8})
    for (auto [n, k] : {std::pair{4096, 4096}, {14336, 4096}, {4096, 14336}}) {
      add(kGemv, m, n, k);
      add(kRows, m, n, k);
    }
  for (auto [m, n, k] : {std::tuple{4096, 4096, 4096}, {8192, 8192, 8192}, {2048, 2048, 8192},
                         {128, 4096, 4096}, {512, 14336, 4096}})
    add(kWgmma, m, n, k);
  return out;
}

ledger::FamilyEfficiency family(std::string name, double compute, double dram) {
  ledger::FamilyEfficiency e;
  e.family = std::move(name);
  e.compute = compute;
  e.dram = dram;
  return e;
}

ledger::Machine without_families(const char* name) {
  ledger::Machine m = *ledger::find_machine(name);
  m.family_efficiency.clear();
  return m;
}

// The machine the synthetic measurements are priced on: each family at known figures.
ledger::Machine with_known_families(ledger::Machine m) {
  m.family_efficiency = {family("cuda_simt 8x2", 1.0, 0.62),
                         family("mma_sync 16x32 rows", 1.0, 0.81),
                         family("wgmma 128x256", 0.87, 0.9)};
  return m;
}

TEST(FamilyFit, FamilyKeys) {
  EXPECT_EQ(family_key(parse_kernel_config(kGemv)), "cuda_simt 8x2");
  EXPECT_EQ(family_key(parse_kernel_config(kRows)), "mma_sync 16x32 rows");
  EXPECT_EQ(family_key(parse_kernel_config(kWgmma)), "wgmma 128x256");
}

TEST(FamilyFit, PredictionAppliesTheFamilysFiguresOnly) {
  ledger::Machine m = without_families("h200-measured");
  const GemmDesc d = bf16(1, 4096, 14336);  // DRAM-bound
  const KernelConfig gemv = parse_kernel_config(kGemv), rows = parse_kernel_config(kRows);
  const double gemv0 = predict_config(d, 0, gemv, sched::Mode::DataParallel, 1, m).total_s;
  const double rows0 = predict_config(d, 0, rows, sched::Mode::DataParallel, 1, m).total_s;
  m.family_efficiency = {family("cuda_simt 8x2", 1.0, 0.5)};
  const double gemv1 = predict_config(d, 0, gemv, sched::Mode::DataParallel, 1, m).total_s;
  EXPECT_GT(gemv1, 1.5 * gemv0);  // half the bandwidth: nearly twice the time
  EXPECT_DOUBLE_EQ(predict_config(d, 0, rows, sched::Mode::DataParallel, 1, m).total_s, rows0);
}

TEST(FamilyFit, RecoversKnownEfficiencies) {
  const ledger::Machine plain = without_families("h200-measured");
  const ledger::Machine truth = with_known_families(plain);
  const std::vector<Measurement> rows = synthetic(truth);
  const std::vector<ledger::FamilyEfficiency> fit = fit_families(rows, plain, "synthetic");
  ASSERT_EQ(fit.size(), 3u);
  for (const ledger::FamilyEfficiency& f : fit) {
    const ledger::FamilyEfficiency* want = truth.efficiency_of(f.family);
    ASSERT_NE(want, nullptr) << f.family;
    EXPECT_EQ(f.source, "synthetic");
    EXPECT_LT(f.median_error, 0.005) << f.family;
    EXPECT_GT(f.median_error_before, 0.05) << f.family;
    // The DRAM-bound families pin their bandwidth; the wgmma rows are mostly compute-bound.
    if (f.family == "wgmma 128x256") EXPECT_NEAR(f.compute, want->compute, 0.011);
    else EXPECT_NEAR(f.dram, want->dram, 0.011) << f.family;
  }
  ledger::Machine fitted = plain;
  fitted.family_efficiency = fit;
  const PickCheck before = check_picks(rows, plain), after = check_picks(rows, fitted);
  EXPECT_GT(before.median_error, 0.05);
  EXPECT_LT(after.median_error, 0.005);
  EXPECT_EQ(after.problems, 14);  // 9 decode shapes with two kernels each, 5 with one
  EXPECT_EQ(after.within_5pct, after.problems);
}

TEST(FamilyFit, RankingStageMovesFiguresTowardTheMeasuredOrder) {
  const ledger::Machine plain = without_families("h200-measured");
  const ledger::Machine truth = with_known_families(plain);
  const std::vector<Measurement> rows = synthetic(truth);
  // Figures that rank the decode kernels the wrong way round.
  std::vector<ledger::FamilyEfficiency> wrong = {family("cuda_simt 8x2", 1.0, 0.9),
                                                 family("mma_sync 16x32 rows", 1.0, 0.6),
                                                 family("wgmma 128x256", 0.87, 0.9)};
  ledger::Machine start = plain;
  start.family_efficiency = wrong;
  const PickCheck before = check_picks(rows, start);
  ASSERT_LT(before.within_5pct, before.problems);
  ASSERT_FALSE(before.misses.empty());
  const std::vector<ledger::FamilyEfficiency> moved = refine_for_picks(rows, plain, wrong);
  ASSERT_EQ(moved.size(), wrong.size());
  for (std::size_t i = 0; i < moved.size(); ++i) EXPECT_EQ(moved[i].family, wrong[i].family);
  ledger::Machine after = plain;
  after.family_efficiency = moved;
  const PickCheck now = check_picks(rows, after);
  EXPECT_EQ(now.within_5pct, now.problems);
  EXPECT_TRUE(now.misses.empty());
  EXPECT_LT(now.median_error, before.median_error);
}

TEST(FamilyFit, FamiliesWithTooFewRowsAreLeftOut) {
  const ledger::Machine& m = *ledger::find_machine("h200-measured");
  std::vector<Measurement> rows = synthetic(m);
  rows.resize(1);
  EXPECT_TRUE(fit_families(rows, m, "one row").empty());
}

TEST(FamilyFit, MeasurementJsonRoundTrip) {
  ledger::Machine m = *ledger::find_machine("h200-measured");
  Measurement x = synthetic(m).back();
  x.mode = sched::Mode::SplitK;
  x.split = 4;
  x.beta = 0.5;
  x.desc.trans_b = Op::Trans;
  x.desc.b.layout = Layout::RowMajor;
  const Measurement y = measurement_from_json(measurement_json(x));
  EXPECT_EQ(measurement_json(y), measurement_json(x));
  EXPECT_EQ(y.split, 4);
  EXPECT_EQ(y.mode, sched::Mode::SplitK);
  EXPECT_DOUBLE_EQ(y.measured_s, x.measured_s);
}

TEST(FamilyFit, BadMeasurementNamesTheKey) {
  const ledger::Machine& m = *ledger::find_machine("h200-measured");
  nlohmann::json j = measurement_json(synthetic(m).front());
  for (const char* key : {"split", "config", "mode", "measured_ms"}) {
    nlohmann::json bad = j;
    bad[key] = key == std::string("split") || key == std::string("measured_ms")
                   ? nlohmann::json("x")
                   : nlohmann::json("no such thing");
    try {
      measurement_from_json(bad);
      ADD_FAILURE() << key << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  }
  nlohmann::json zero = j;
  zero["measured_ms"] = 0.0;
  EXPECT_THROW(measurement_from_json(zero), std::invalid_argument);
  EXPECT_THROW(read_measurements("/nonexistent/measured.json"), std::invalid_argument);
}

TEST(FamilyFit, MachineJsonKeepsFamilies) {
  ledger::Machine m = *ledger::find_machine("h100-measured");
  m.family_efficiency = {family("wgmma 128x256", 0.9, 0.8)};
  m.family_efficiency[0].rows = 7;
  m.family_efficiency[0].source = "run 1";
  const ledger::Machine back = ledger::machine_from_json_text(ledger::machine_to_json(m));
  ASSERT_EQ(back.family_efficiency.size(), 1u);
  EXPECT_EQ(back.family_efficiency[0].family, "wgmma 128x256");
  EXPECT_DOUBLE_EQ(back.family_efficiency[0].compute, 0.9);
  EXPECT_DOUBLE_EQ(back.family_efficiency[0].dram, 0.8);
  EXPECT_EQ(back.family_efficiency[0].rows, 7);
  EXPECT_EQ(back.family_efficiency[0].source, "run 1");
  try {
    ledger::machine_from_json_text(
        R"({"base": "h100-measured", "family_efficiency": [{"family": "x", "dram": 0}]})", "f.json");
    ADD_FAILURE() << "a zero efficiency was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("family_efficiency 'x'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gemmkit::dispatch
