// Properties of the ledger (monotone in sizes, units consistent, every branch of the variant
// tree reached), machine JSON, the host machine, the roofline SVG, and the `gemmkit ledger` CLI.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>

#include "ledger/ledger.hpp"

namespace lg = gemmkit::ledger;
using gemmkit::DType;
using gemmkit::GemmDesc;

namespace {

GemmDesc problem(std::int64_t m, std::int64_t n, std::int64_t k, DType t = DType::BF16) {
  GemmDesc d;
  d.m = m;
  d.n = n;
  d.k = k;
  d.a.dtype = d.b.dtype = d.c.dtype = d.d.dtype = t;
  return d;
}

const lg::Machine& machine(const char* name) { return *lg::find_machine(name); }

std::uint64_t test_seed() {
  const char* env = std::getenv("GEMMKIT_TEST_SEED");
  const std::uint64_t seed = env ? std::strtoull(env, nullptr, 10) : 20240531u;
  std::printf("ledger property seed: %llu (set GEMMKIT_TEST_SEED to replay)\n",
              static_cast<unsigned long long>(seed));
  return seed;
}

}  // namespace

TEST(LedgerProperties, MonotoneInSizes) {
  const lg::Machine& m = machine("h200");
  std::mt19937_64 rng(test_seed());
  std::uniform_int_distribution<std::int64_t> size(1, 6000);
  for (int i = 0; i < 300; ++i) {
    const std::int64_t a = size(rng), b = size(rng), c = size(rng), grow = size(rng);
    const lg::ProblemLedger p = lg::analyze(problem(a, b, c), 0.0, m);
    for (const GemmDesc& bigger :
         {problem(a + grow, b, c), problem(a, b + grow, c), problem(a, b, c + grow)}) {
      const lg::ProblemLedger q = lg::analyze(bigger, 0.0, m);
      EXPECT_GT(q.flops, p.flops);
      EXPECT_GT(q.min_bytes, p.min_bytes);
      EXPECT_GE(q.t_floor_s, p.t_floor_s);
    }
    // Squares: AI grows with the side.
    EXPECT_LT(lg::analyze(problem(a, a, a), 0.0, m).arithmetic_intensity,
              lg::analyze(problem(a + grow, a + grow, a + grow), 0.0, m).arithmetic_intensity);
  }
  // Bigger tiles never read more; more stages never use less shared memory.
  const GemmDesc d = problem(4096, 4096, 4096);
  double last = 1e300;
  for (std::int64_t t : {16, 32, 64, 128, 256}) {
    const lg::TileLedger tl =
        lg::analyze_tile(d, lg::TileConfig{.block_m = t, .block_n = t, .block_k = 32}, m);
    EXPECT_LT(tl.dram_bytes, last) << t;
    last = tl.dram_bytes;
  }
  std::int64_t smem = 0;
  for (int s = 1; s <= 6; ++s) {
    const lg::TileLedger tl = lg::analyze_tile(d, lg::TileConfig{.stages = s}, m);
    EXPECT_GT(tl.smem_bytes, smem);
    smem = tl.smem_bytes;
  }
}

TEST(LedgerProperties, UnitsConsistent) {
  std::mt19937_64 rng(test_seed() + 1);
  std::uniform_int_distribution<std::int64_t> size(1, 9000);
  const DType types[] = {DType::F64, DType::F32, DType::F16, DType::BF16, DType::E4M3, DType::I8};
  for (const char* name :
       {"h100-seed", "h100-sxm", "h100-measured", "h200", "h200-measured", "a100", "ascend-910b"}) {
    const lg::Machine& m = machine(name);
    for (int i = 0; i < 100; ++i) {
      const GemmDesc d = problem(size(rng), size(rng), size(rng), types[rng() % 6]);
      const lg::ProblemLedger p = lg::analyze(d, 0.0, m);
      ASSERT_GT(p.peak_flops, 0) << name;
      EXPECT_NEAR(p.arithmetic_intensity * p.min_bytes, p.flops, 1e-9 * p.flops);
      EXPECT_NEAR(p.ridge_point * p.dram_bytes_per_s, p.peak_flops, 1e-6 * p.peak_flops);
      EXPECT_DOUBLE_EQ(p.t_floor_s,
                       std::max(p.flops / p.peak_flops, p.min_bytes / p.dram_bytes_per_s));
      EXPECT_EQ(p.compute_bound, p.t_compute_s >= p.t_memory_s) << name;
      // No prediction beats the floor; every term is non-negative.
      const lg::Prediction pr = lg::predict(d, 0.0, lg::default_tile_config(d, m), m);
      EXPECT_GE(pr.total_s, p.t_floor_s * (1 - 1e-12))
          << name << " " << d.m << "x" << d.n << "x" << d.k;
      for (const lg::Term& t : pr.terms) EXPECT_GE(t.seconds, 0) << t.name;
      EXPECT_GE(pr.dram_bytes, p.min_bytes * (1 - 1e-12));
      // The tiled traffic is never below the minimum.
      const lg::TileLedger tl = lg::analyze_tile(d, lg::default_tile_config(d, m), m);
      EXPECT_GE(tl.dram_bytes, tl.min_bytes * (1 - 1e-12));
      EXPECT_GT(tl.tail_efficiency, 0);
      EXPECT_LE(tl.tail_efficiency, 1);
    }
  }
}

TEST(LedgerProperties, ElementSizesAndBeta) {
  EXPECT_DOUBLE_EQ(lg::element_bytes(DType::I4), 0.5);
  EXPECT_DOUBLE_EQ(lg::element_bytes(DType::E4M3), 1.0);
  GemmDesc d = problem(1024, 2048, 512, DType::I8);
  d.b.dtype = DType::I4;
  d.c.dtype = d.d.dtype = DType::I32;
  const lg::Machine& m = machine("h200");
  const lg::ProblemLedger p0 = lg::analyze(d, 0.0, m);
  EXPECT_DOUBLE_EQ(p0.a_bytes, 1024.0 * 512);
  EXPECT_DOUBLE_EQ(p0.b_bytes, 0.5 * 512 * 2048);
  EXPECT_DOUBLE_EQ(p0.c_bytes, 0);  // beta == 0: C is never read
  EXPECT_DOUBLE_EQ(p0.d_bytes, 4.0 * 1024 * 2048);
  EXPECT_EQ(p0.peak_class, lg::PeakClass::INT8);
  const lg::ProblemLedger p1 = lg::analyze(d, 1.0, m);
  EXPECT_DOUBLE_EQ(p1.c_bytes, 4.0 * 1024 * 2048);
  EXPECT_DOUBLE_EQ(p1.min_bytes - p0.min_bytes, p1.c_bytes);
  // Scaled formats add their scales: MX, one byte per 32 K-elements per row/column.
  const lg::ProblemLedger mx =
      lg::analyze(problem(256, 128, 1024, DType::E4M3), 0.0, m, lg::ScaleLayout::Mx32);
  EXPECT_DOUBLE_EQ(mx.scale_bytes, (256 + 128) * (1024 / 32));
  // Mixed bf16 x int4 runs at the bf16 rate.
  EXPECT_EQ(lg::peak_class_for(DType::BF16, DType::I4), lg::PeakClass::FP16);
  // A100 has no fp8: its fp16 peak is used.
  lg::PeakClass used;
  EXPECT_DOUBLE_EQ(lg::peak_flops(machine("a100"), lg::PeakClass::FP8, &used), 312e12);
  EXPECT_EQ(used, lg::PeakClass::FP16);
}

TEST(LedgerProperties, EveryVariantBranchReached) {
  const lg::Machine& h200 = machine("h200");
  const lg::TileConfig t128{
      .block_m = 128, .block_n = 128, .block_k = 64, .stages = 4, .threads = 256};
  // data-parallel: 1024 tiles = 3.9 waves over 264 blocks, tail 0.97
  lg::VariantChoice c = lg::choose_variant(problem(4096, 4096, 4096), h200, t128);
  EXPECT_EQ(c.variant, lg::Variant::DataParallel) << c.reason;
  EXPECT_EQ(c.split, 1);
  // split-K: 4 output tiles on 132 SMs, K = 32768 gives 512 BK steps
  c = lg::choose_variant(problem(256, 256, 32768), h200, t128);
  EXPECT_EQ(c.variant, lg::Variant::SplitK) << c.reason;
  EXPECT_EQ(c.split, 33);  // ceil(132 / 4)
  EXPECT_NE(c.reason.find("split-K"), std::string::npos);
  // few tiles but K too short to split: data-parallel, saying why
  c = lg::choose_variant(problem(256, 256, 256), h200, t128);
  EXPECT_EQ(c.variant, lg::Variant::DataParallel) << c.reason;
  EXPECT_NE(c.reason.find("too short"), std::string::npos);
  // stream-K: 1 block per SM (192 KiB of smem), 133 tiles = 1.01 waves, tail 0.50
  const lg::TileConfig t256{
      .block_m = 256, .block_n = 128, .block_k = 64, .stages = 4, .threads = 256};
  EXPECT_EQ(lg::analyze_tile(problem(1792, 2432, 4096), t256, h200).blocks_per_sm, 1);
  c = lg::choose_variant(problem(256 * 7, 128 * 19, 4096), h200, t256);
  EXPECT_EQ(c.variant, lg::Variant::StreamK) << c.reason;
  // GEMV-like: decode, memory-bound, M = 1
  c = lg::choose_variant(problem(1, 4096, 4096), h200, t128);
  EXPECT_EQ(c.variant, lg::Variant::Gemv) << c.reason;
  // batched: one shape many times; grouped: different shapes
  GemmDesc b = problem(512, 512, 512);
  b.batch = 32;
  EXPECT_EQ(lg::choose_variant(b, h200, t128).variant, lg::Variant::Batched);
  EXPECT_EQ(
      lg::choose_variant(problem(0, 4096, 7168), h200, t128, {{128, 4096, 7168}, {128, 4096, 7168}})
          .variant,
      lg::Variant::Batched);
  c = lg::choose_variant(problem(0, 4096, 7168), h200, t128,
                         {{100, 4096, 7168}, {900, 4096, 7168}});
  EXPECT_EQ(c.variant, lg::Variant::Grouped) << c.reason;
  EXPECT_EQ(lg::variant_name(c.variant), "grouped");
}

TEST(LedgerProperties, PredictionTermsRespondToTheirCause) {
  const lg::Machine& m = machine("h200-measured");
  const lg::TileConfig t{
      .block_m = 128, .block_n = 256, .block_k = 64, .stages = 4, .threads = 384};
  // A big square is compute-limited and close to its floor.
  const GemmDesc big = problem(8192, 8192, 8192);
  const lg::Prediction pb = lg::predict(big, 0.0, t, m);
  EXPECT_EQ(pb.limiter, "compute");
  EXPECT_LT(pb.total_s, 1.1 * lg::analyze(big, 0.0, m).t_floor_s);
  // One tile more than a full wave costs a second wave.
  const lg::Prediction exact = lg::predict(problem(128 * 12, 256 * 11, 4096), 0.0, t, m);  // 132
  const lg::Prediction plus1 = lg::predict(problem(128 * 12 + 1, 256 * 11, 4096), 0.0, t, m);
  EXPECT_NEAR(exact.term("wave_quantization"), 0, 1e-12);
  EXPECT_GT(plus1.term("wave_quantization"), 0.9 * exact.term("compute"));
  // Coefficients are data: halving the compute efficiency doubles the compute term.
  lg::Coefficients half;
  half.compute_efficiency = 0.5;
  EXPECT_NEAR(lg::predict(big, 0.0, t, m, half).term("compute"), 2 * pb.term("compute"),
              1e-9 * pb.term("compute"));
  // predict_ms: simple form for the bench harness.
  EXPECT_NEAR(lg::predict_ms(big, 0.0, t, "h200-measured"), pb.total_s * 1e3, 1e-12);
  EXPECT_TRUE(std::isnan(lg::predict_ms(big, 0.0, t, "no-such-machine")));
  EXPECT_TRUE(std::isfinite(lg::predict_ms(big, 0.0, "h200-measured")));
}

TEST(LedgerProperties, TileConfigParsing) {
  lg::TileConfig t = lg::parse_tile_config("128x256x64");
  EXPECT_EQ(t.block_m, 128);
  EXPECT_EQ(t.block_n, 256);
  EXPECT_EQ(t.block_k, 64);
  t = lg::parse_tile_config("MR=6,NR=16,MC=96,KC=256,NC=4080");
  EXPECT_EQ(t.frag_m, 6);
  EXPECT_EQ(t.frag_n, 16);
  EXPECT_EQ(t.block_m, 96);
  EXPECT_EQ(t.block_n, 4080);
  EXPECT_EQ(t.block_k, 256);
  t = lg::parse_tile_config("BM=64 BN=64 BK=32 STAGES=3 THREADS=128 SPLIT=4 CLUSTER=2");
  EXPECT_EQ(t.stages, 3);
  EXPECT_EQ(t.threads, 128);
  EXPECT_EQ(t.split_k, 4);
  EXPECT_THROW(lg::parse_tile_config("128x128"), std::invalid_argument);
  EXPECT_THROW(lg::parse_tile_config("BM=-1"), std::invalid_argument);
  EXPECT_THROW(lg::parse_tile_config("BMxBNxBK"), std::invalid_argument);
}

TEST(LedgerMachines, JsonRoundTripAndBase) {
  for (const std::string& name : lg::machine_names()) {
    if (name == "host") continue;
    const lg::Machine& m = *lg::find_machine(name);
    const lg::Machine back = lg::machine_from_json_text(lg::machine_to_json(m));
    EXPECT_EQ(back.name, m.name);
    EXPECT_EQ(back.sm_count, m.sm_count);
    EXPECT_EQ(back.smem_per_block, m.smem_per_block);
    EXPECT_EQ(back.l0c_bytes, m.l0c_bytes);
    EXPECT_DOUBLE_EQ(back.dram_bytes_per_s, m.dram_bytes_per_s);
    for (int c = 0; c < lg::kPeakClassCount; ++c) EXPECT_DOUBLE_EQ(back.peak[c], m.peak[c]);
  }
  const lg::Machine derived = lg::machine_from_json_text(
      R"({"base": "h200", "name": "h200-slow", "dram_bytes_per_s": 2e12, "peak_flops": {"fp16": 5e14}})");
  EXPECT_EQ(derived.sm_count, 132);
  EXPECT_DOUBLE_EQ(derived.dram_bytes_per_s, 2e12);
  EXPECT_DOUBLE_EQ(derived.peak_of(lg::PeakClass::FP16), 5e14);
  EXPECT_DOUBLE_EQ(derived.peak_of(lg::PeakClass::FP8), 1978.9e12);
  EXPECT_THROW(lg::machine_from_json_text("{"), std::runtime_error);
  EXPECT_THROW(lg::machine_from_json_text(R"({"name": "x"})"), std::runtime_error);
  EXPECT_THROW(lg::machine_from_json_text(R"({"base": "nope"})"), std::runtime_error);
  EXPECT_THROW(lg::machine_from_json_text(R"({"base": "h200", "peak_flops": {"fp4": 1}})"),
               std::runtime_error);
  EXPECT_THROW(lg::resolve_machine("no-such-machine"), std::runtime_error);
  EXPECT_EQ(lg::find_machine("no-such-machine"), nullptr);
}

TEST(LedgerMachines, ExampleMachineFilesLoad) {
  const char* src = std::getenv("GEMMKIT_TEST_SRC");
  if (!src) GTEST_SKIP() << "GEMMKIT_TEST_SRC not set (run through ctest)";
  for (const char* f : {"data/machines/example-gpu.json", "data/machines/example-cpu.json"}) {
    const lg::Machine m = lg::load_machine_json(std::string(src) + "/" + f);
    EXPECT_FALSE(m.name.empty()) << f;
    EXPECT_GT(m.dram_bytes_per_s, 0) << f;
  }
}

TEST(LedgerMachines, HostDetected) {
  const lg::Machine& h = lg::host_machine();
  EXPECT_EQ(h.kind, "cpu");
  EXPECT_GE(h.sm_count, 1);
  EXPECT_TRUE(h.simd_bits == 128 || h.simd_bits == 256 || h.simd_bits == 512);
  EXPECT_GT(h.freq_hz, 1e8);
  EXPECT_GT(h.dram_bytes_per_s, 0);
  EXPECT_DOUBLE_EQ(h.peak_of(lg::PeakClass::FP32),
                   h.sm_count * h.freq_hz * h.fma_units * (h.simd_bits / 32.0) * 2);
  EXPECT_DOUBLE_EQ(h.peak_of(lg::PeakClass::FP64), h.peak_of(lg::PeakClass::FP32) / 2);
  EXPECT_EQ(lg::find_machine("host"), &h);
  std::printf("host: %s; fp32 peak %.1f GFLOP/s, DRAM %.1f GB/s, L1d %lld, L2 %lld, LLC %lld\n",
              h.description.c_str(), h.peak_of(lg::PeakClass::FP32) / 1e9, h.dram_bytes_per_s / 1e9,
              static_cast<long long>(h.l1d_bytes), static_cast<long long>(h.smem_per_sm),
              static_cast<long long>(h.l2_bytes));
  // A CPU row of the bench: finite prediction with a CPU tile config.
  const double ms =
      lg::predict_ms(problem(1024, 1024, 1024, DType::F32), 0.0,
                     lg::parse_tile_config("MR=6,NR=16,MC=96,KC=256,NC=2048"), "host");
  EXPECT_TRUE(std::isfinite(ms));
  EXPECT_GT(ms, 0);
}

TEST(LedgerRoofline, SvgHasRoofsAxesAndPoints) {
  const lg::Machine& m = machine("h200");
  const std::vector<lg::RooflinePoint> pts = {
      {lg::RooflinePoint::Kind::Problem, "4096^3 bf16", 1365, 989e12, -1},
      {lg::RooflinePoint::Kind::Measured, "a", 1000, 700e12, 0},
      {lg::RooflinePoint::Kind::Predicted, "a", 1000, 760e12, 0}};
  const std::string svg = lg::roofline_svg(m, pts, "roofline <h200>");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("&lt;h200&gt;"), std::string::npos);  // escaped title
  auto count = [&](const std::string& s) {
    std::size_t n = 0;
    for (std::size_t p = svg.find(s); p != std::string::npos; p = svg.find(s, p + 1)) ++n;
    return n;
  };
  // h200: fp64 = fp32 share a roof, fp8 = int8 share one: 4 distinct roofs.
  EXPECT_EQ(count("class=\"roof\""), 4u);
  EXPECT_EQ(count("class=\"ridge\""), 4u);
  EXPECT_NE(svg.find("fp64/fp32"), std::string::npos);
  EXPECT_NE(svg.find("fp8/int8"), std::string::npos);
  EXPECT_EQ(count("class=\"problem\""), 1u);
  EXPECT_EQ(count("class=\"measured\""), 1u);
  EXPECT_EQ(count("class=\"predicted\""), 1u);
  EXPECT_NE(svg.find("arithmetic intensity"), std::string::npos);
}

// The CLI: `gemmkit ledger --json` prints the issue's keys.
TEST(LedgerCli, JsonKeys) {
  const char* bin = std::getenv("GEMMKIT_BIN");
  if (!bin) GTEST_SKIP() << "GEMMKIT_BIN not set (run through ctest)";
  const std::string svg = testing::TempDir() + "ledger_cli_roofline.svg";
  const std::string cmd = std::string(bin) +
                          " ledger --m 4096 --n 4096 --k 4096 --dtype f16 --machine h100-seed"
                          " --tile 128x128x32 --stages 3 --threads 128 --count-reads --ascend"
                          " --variant --json --roofline " +
                          svg;
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  ASSERT_EQ(pclose(p), 0) << out;
  const nlohmann::json j = nlohmann::json::parse(out);
  for (const char* key : {"flops", "min_bytes", "arithmetic_intensity", "ridge_point", "bound",
                          "t_floor_s", "tile", "reads", "writes", "ascend", "variant", "reason"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_DOUBLE_EQ(j["min_bytes"].get<double>(), 96.0 * 1024 * 1024);
  EXPECT_EQ(j["bound"], "compute");
  for (const char* key : {"smem_bytes_per_stage", "smem_bytes", "acc_regs_per_thread",
                          "blocks_per_sm", "dram_bytes", "tiles", "waves", "tail_efficiency"})
    EXPECT_TRUE(j["tile"].contains(key)) << key;
  EXPECT_EQ(j["tile"]["smem_bytes"].get<std::int64_t>(), 48 * 1024);
  EXPECT_DOUBLE_EQ(j["tile"]["acc_regs_per_thread"].get<double>(), 128.0);
  EXPECT_EQ(j["writes"].get<std::int64_t>(), 4096LL * 4096);
  std::ifstream f(svg);
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_NE(ss.str().find("</svg>"), std::string::npos);
  // An unknown machine is an error with a non-zero exit.
  const std::string bad = std::string(bin) + " ledger --machine no-such-machine --json 2>/dev/null";
  EXPECT_NE(std::system(bad.c_str()), 0);
}

namespace {

// The TMA kernels' staging rule (ledger/tma_staging.hpp): an operand whose leading dimension
// is not a multiple of 16 bytes is always copied (its bytes read and written once, a launch);
// one whose rows are off 128 bytes is copied when the GEMM is long enough for the slower reads
// to cost more (5000^3), else read slowly (1000^3: a share of the compute time); aligned
// operands cost nothing; kernels that do not use the TMA never pay either.
TEST(LedgerStaging, PaddedCopiesOfOperandsTheTmaCannotAddressOrReadsSlowly) {
  const lg::Machine& m = machine("h200-measured");
  lg::TileConfig t{.block_m = 128, .block_n = 256, .block_k = 64, .stages = 4, .threads = 384};
  t.tma_operands = true;
  const auto pred = [&](std::int64_t m_, std::int64_t n_, std::int64_t k_) {
    return lg::predict(gemmkit::with_default_lds(problem(m_, n_, k_)), 0.0, t, m);
  };
  EXPECT_EQ(pred(4096, 4096, 4096).term("staging"), 0.0);
  EXPECT_EQ(pred(4096, 4096, 4096).term("tma_misaligned"), 0.0);
  const double bytes = 4095.0 * 4095 * 2;  // A and B: 4095 x 4095 bf16, ld 4095 (2-byte rows)
  EXPECT_NEAR(pred(4095, 4095, 4095).term("staging"), 2 * lg::staging_copy_s(bytes), 1e-12);
  // Only B's ld (4095) is odd; A's (4096) is fine.
  EXPECT_NEAR(pred(4096, 4096, 4095).term("staging"), lg::staging_copy_s(4095.0 * 4096 * 2), 1e-12);
  EXPECT_NEAR(pred(5000, 5000, 5000).term("staging"), 2 * lg::staging_copy_s(5000.0 * 5000 * 2),
              1e-12);
  EXPECT_EQ(pred(5000, 5000, 5000).term("tma_misaligned"), 0.0);
  const lg::Prediction small = pred(1000, 1000, 1000);
  EXPECT_EQ(small.term("staging"), 0.0);
  EXPECT_NEAR(small.term("tma_misaligned"), 2 * lg::kTmaMisalignedShare * small.term("compute"),
              1e-15);
  t.tma_operands = false;
  EXPECT_EQ(pred(4095, 4095, 4095).term("staging"), 0.0);
  EXPECT_EQ(pred(1000, 1000, 1000).term("tma_misaligned"), 0.0);
}

// Stream-K counts the spread work in fractional waves (each at 1.7 a data-parallel wave) plus
// a fixup: it wins where the last wave is nearly empty (142 tiles: 1.08 waves against 2), and
// without a partial wave it adds nothing over data-parallel.
TEST(LedgerStreamK, FractionalWavesAndAFixup) {
  const lg::Machine& m = machine("h200-measured");
  lg::TileConfig dp{.block_m = 128, .block_n = 256, .block_k = 64, .stages = 4, .threads = 384};
  lg::TileConfig sk = dp;
  sk.stream_k = true;
  const GemmDesc odd = gemmkit::with_default_lds(problem(9088, 512, 16384));  // 71 x 2 tiles
  const lg::Prediction pd = lg::predict(odd, 0.0, dp, m), ps = lg::predict(odd, 0.0, sk, m);
  EXPECT_LT(ps.total_s, pd.total_s);
  EXPECT_GT(ps.term("fixup"), 0.0);
  EXPECT_EQ(pd.term("fixup"), 0.0);
  const GemmDesc full = gemmkit::with_default_lds(problem(1536, 2816, 4096));  // 132 tiles
  EXPECT_DOUBLE_EQ(lg::predict(full, 0.0, sk, m).total_s, lg::predict(full, 0.0, dp, m).total_s);
}

// Fewer tiles than SMs, data-parallel: tiles the problem fills draw their rings' stream rate
// (56 whole 128 x 128 tiles of 128 x 7168 x 2048 ran 14.8 us on the H200, not the 23 us of
// 56 / 132 of the bandwidth); tiles it does not fill (8 rows of 128) keep their share of the
// bandwidth (the rule taken there priced decode rows below what they ran).
TEST(LedgerDataParallel, WholeTilesStreamAtTheirRingsRate) {
  const lg::Machine& m = machine("h200-measured");
  auto pred = [&](std::int64_t rows) {
    lg::TileConfig t{.block_m = 128, .block_n = 128, .block_k = 64, .stages = 6, .threads = 384};
    t.tma_operands = true;
    return lg::predict(gemmkit::with_default_lds(problem(rows, 7168, 2048)), 0.0, t, m);
  };
  const lg::Prediction whole = pred(128), partial = pred(8);
  ASSERT_GT(whole.term("dram"), 0);
  // About the same bytes (B's 29 MB), 56 tiles each: 132 / 56 times the time at a share,
  // where a whole tile's CTA reads its 32 K-iterations at its ring's rate (11.7 us).
  EXPECT_NEAR(partial.dram_bytes / whole.dram_bytes, 1.0, 0.1);
  EXPECT_GE(whole.term("dram"), 32 * m.stream_latency_s / 6);
  EXPECT_GT(partial.term("dram"), 1.25 * whole.term("dram"));
  EXPECT_LT(whole.total_s, 20e-6);
}

// A streaming worker reads its own operand bytes, L2 hits included, a stage per stream
// latency / stages at most: 64 whole 64 x 128 tiles of 128 x 4096 x 4096 each read all of A
// beside a B panel (64 K-iterations of 24 KiB), so the DRAM bytes at the busy share (8.4 us)
// do not bound them; 128 x 4096 x 4096 in 64 x 128 tiles ran 21.4 us on the H200. Two pieces
// each halve the K-iterations, and the bound with them.
TEST(LedgerDataParallel, AWorkerReadsItsOwnBytesAtItsRingsRate) {
  const lg::Machine& m = machine("h200-measured");
  auto pred = [&](int split) {
    lg::TileConfig t{.block_m = 64, .block_n = 128, .block_k = 64, .stages = 8, .threads = 384};
    t.split_k = split;
    t.tma_operands = true;
    return lg::predict(gemmkit::with_default_lds(problem(128, 4096, 4096)), 0.0, t, m);
  };
  const lg::Prediction whole = pred(1), halves = pred(2);
  const double per_stage = m.stream_latency_s / 8;
  EXPECT_GE(whole.term("dram"), 64 * per_stage);
  EXPECT_LT(whole.dram_bytes / m.dram_bytes_per_s, 0.6 * whole.term("dram"));
  EXPECT_GE(halves.term("dram"), 32 * per_stage);
  EXPECT_LT(halves.term("dram"), 0.75 * whole.term("dram"));
}

// Split-K on a machine with a stream latency and an L2 rate (h200-measured): half the SMs'
// pieces stream a long K as fast as all of them, the partials cost more the more pieces there
// are, so 64 pieces of one 128 x 128 tile beat 132; few pieces are limited by their own rate.
// On the datasheet machine (neither figure) a piece draws bandwidth / SMs and the fixup is
// one partial tile whatever the count.
TEST(LedgerSplitK, PiecesStreamAtTheirRingsRateAndPayForTheirPartials) {
  const lg::Machine& m = machine("h200-measured");
  const GemmDesc d = gemmkit::with_default_lds(problem(128, 128, 65536));
  auto pred = [&](const lg::Machine& mc, int split) {
    lg::TileConfig t{.block_m = 128, .block_n = 128, .block_k = 64, .stages = 6, .threads = 384};
    t.split_k = split;
    t.tma_operands = true;
    return lg::predict(d, 0.0, t, mc);
  };
  const lg::Prediction p8 = pred(m, 8), p64 = pred(m, 64), p132 = pred(m, 132);
  EXPECT_LT(p64.total_s, p132.total_s);
  EXPECT_LT(p64.total_s, p8.total_s);
  EXPECT_LE(p64.term("dram"), p132.term("dram"));    // both saturate the DRAM
  EXPECT_GT(p8.term("dram"), 4 * p64.term("dram"));  // 8 rings do not
  EXPECT_GT(p132.term("fixup"), p64.term("fixup"));
  const lg::Machine& sheet = machine("h200");
  EXPECT_DOUBLE_EQ(pred(sheet, 64).term("fixup"), pred(sheet, 132).term("fixup"));
  EXPECT_GT(pred(sheet, 64).term("dram"), pred(sheet, 132).term("dram"));
}

// Where a piece's ring bound and the DRAM's come close, neither is reached: 128 x 128 x 65536 in
// 64 x 128 tiles ran 15.7 us in 32 pieces (the ring's bound about equal to the DRAM's) and 14.6
// in 64 (the ring's half of it) on the H200, so the ledger ranks 64 pieces first; far apart,
// the larger bound stands (within 2%).
TEST(LedgerSplitK, CloseBoundsCostMoreThanEither) {
  const lg::Machine& m = machine("h200-measured");
  const GemmDesc d = gemmkit::with_default_lds(problem(128, 128, 65536));
  auto pred = [&](int split) {
    lg::TileConfig t{.block_m = 64, .block_n = 128, .block_k = 64, .stages = 8, .threads = 384};
    t.split_k = split;
    t.tma_operands = true;
    return lg::predict(d, 0.0, t, m);
  };
  const lg::Prediction p32 = pred(32), p64 = pred(64);
  EXPECT_LT(p64.total_s, p32.total_s);
  const double ring32 = 32 * m.stream_latency_s / 8, ring64 = 16 * m.stream_latency_s / 8;
  EXPECT_GT(p32.term("dram"), 1.1 * ring32);
  EXPECT_GT(p64.term("dram"), ring64);
  const double dram64 = p64.dram_bytes / m.dram_bytes_per_s;
  EXPECT_GE(p64.term("dram"), dram64);
  EXPECT_LT(p64.term("dram"), 1.05 * std::max(dram64, ring64));
}

}  // namespace
