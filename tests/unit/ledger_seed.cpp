// The ledger reproduces the figures of the seed chapter (section 1, 1.5, 4.1, 6.1) and of the
// matmul-memory tutorial (sections 02-04) exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "ledger/ledger.hpp"

namespace lg = gemmkit::ledger;
using gemmkit::DType;
using gemmkit::GemmDesc;

namespace {

GemmDesc square(std::int64_t m, DType t) {
  GemmDesc d;
  d.m = d.n = d.k = m;
  d.a.dtype = d.b.dtype = d.c.dtype = d.d.dtype = t;
  d.compute = DType::F32;
  return d;
}

const lg::Machine& machine(const char* name) {
  const lg::Machine* m = lg::find_machine(name);
  EXPECT_NE(m, nullptr) << name;
  return *m;
}

}  // namespace

// Seed 1.1: the seed's H100 model, fp16 1000 TFLOP/s and 3 TB/s, balance ~333 FLOP/B.
TEST(LedgerSeed, SeedH100ModelBalance) {
  const lg::Machine& m = machine("h100-seed");
  EXPECT_DOUBLE_EQ(m.peak_of(lg::PeakClass::FP16), 1000e12);
  EXPECT_DOUBLE_EQ(m.dram_bytes_per_s, 3e12);
  EXPECT_NEAR(lg::ridge_point(m, lg::PeakClass::FP16), 1000.0 / 3.0, 1e-9);
  EXPECT_EQ(std::lround(lg::ridge_point(m, lg::PeakClass::FP16)), 333);
}

// Seed 1.1: the AI-by-size table of fp16 squares on the seed's H100 model. AI = 2M/(3b) = M/3.
TEST(LedgerSeed, ArithmeticIntensityTableForSquares) {
  const lg::Machine& m = machine("h100-seed");
  struct Row {
    std::int64_t m;
    double ai;
    const char* bound;
  };
  const Row table[] = {{128, 128.0 / 3, "memory"},    {256, 256.0 / 3, "memory"},
                       {512, 512.0 / 3, "memory"},    {1024, 1024.0 / 3, "compute"},
                       {2048, 2048.0 / 3, "compute"}, {4096, 4096.0 / 3, "compute"},
                       {8192, 8192.0 / 3, "compute"}};
  for (const Row& r : table) {
    const lg::ProblemLedger p = lg::analyze(square(r.m, DType::F16), 0.0, m);
    EXPECT_DOUBLE_EQ(p.flops, 2.0 * r.m * r.m * r.m) << r.m;
    EXPECT_DOUBLE_EQ(p.min_bytes, 2.0 * 3 * r.m * r.m) << r.m;
    EXPECT_NEAR(p.arithmetic_intensity, r.ai, 1e-9 * r.ai) << r.m;
    EXPECT_NEAR(lg::square_intensity(r.m, 2.0), r.ai, 1e-9 * r.ai) << r.m;
    EXPECT_STREQ(p.bound(), r.bound) << r.m;
    EXPECT_DOUBLE_EQ(p.t_floor_s, std::max(p.flops / 1000e12, p.min_bytes / 3e12)) << r.m;
  }
  // fp32 squares: AI = 2M/12 = M/6.
  EXPECT_NEAR(lg::analyze(square(1200, DType::F32), 0.0, m).arithmetic_intensity, 200.0, 1e-9);
}

// Seed 1.2: fp16 squares cross the balance point near M = 10^3 (M* = 3 b ridge / 2 = 1000).
TEST(LedgerSeed, CrossoverNearOneThousand) {
  const lg::Machine& m = machine("h100-seed");
  const double ridge = lg::ridge_point(m, lg::PeakClass::FP16);
  EXPECT_NEAR(lg::square_crossover(ridge, 2.0), 1000.0, 1e-9);
  EXPECT_STREQ(lg::analyze(square(999, DType::F16), 0.0, m).bound(), "memory");
  EXPECT_STREQ(lg::analyze(square(1001, DType::F16), 0.0, m).bound(), "compute");
}

// Seed 2.1: fp16 4096^3 needs at least 96 MiB; the naive rung reads ~275 GB of A and B.
TEST(LedgerSeed, MinimumTrafficAndNaiveRung) {
  const GemmDesc d = square(4096, DType::F16);
  const lg::ProblemLedger p = lg::analyze(d, 0.0, machine("h100-seed"));
  EXPECT_DOUBLE_EQ(p.min_bytes, 96.0 * 1024 * 1024);
  const lg::ReadCounts naive = lg::logical_reads(4096, 4096, 4096, 1, 1);
  const double naive_bytes = static_cast<double>(naive.reads) * lg::element_bytes(DType::F16);
  EXPECT_DOUBLE_EQ(naive_bytes, 2.0 * 4096.0 * 4096 * 4096 * 2);  // 2 x 4096^3 x 2 B
  EXPECT_NEAR(naive_bytes / 1e9, 275.0, 0.5);
  // "three orders of magnitude" apart
  EXPECT_NEAR(std::log10(naive_bytes / p.min_bytes), 3.4, 0.1);
}

// Seed 1.3 (a): 128x128x32 fp16 takes 16 KB per stage, 48 KB with 3 stages; ~4 blocks per SM
// in H100's 228 KB.
TEST(LedgerSeed, SharedMemoryPerStage) {
  const GemmDesc d = square(4096, DType::F16);
  const lg::Machine& h100 = machine("h100-sxm");
  lg::TileConfig t{.block_m = 128, .block_n = 128, .block_k = 32, .stages = 1, .threads = 128};
  EXPECT_EQ(lg::analyze_tile(d, t, h100).smem_bytes_per_stage, 16 * 1024);
  EXPECT_EQ(lg::analyze_tile(d, t, h100).smem_bytes, 16 * 1024);
  t.stages = 3;
  const lg::TileLedger tl = lg::analyze_tile(d, t, h100);
  EXPECT_EQ(tl.smem_bytes, 48 * 1024);
  EXPECT_EQ(h100.smem_per_sm, 228 * 1024);
  EXPECT_EQ(tl.blocks_by_smem, 4);
}

// Seed 1.3 (b): a 128x128 fp32 accumulator on 128 threads is 128 registers per thread; 65536
// registers and 2048 threads per SM give 32 per thread at full occupancy; allocation in units
// of 256 per warp.
TEST(LedgerSeed, AccumulatorRegisters) {
  const GemmDesc d = square(4096, DType::F16);
  const lg::Machine& h100 = machine("h100-sxm");
  const lg::TileConfig t{.block_m = 128,
                         .block_n = 128,
                         .block_k = 32,
                         .stages = 3,
                         .threads = 128,
                         .acc = DType::F32};
  const lg::TileLedger tl = lg::analyze_tile(d, t, h100);
  EXPECT_DOUBLE_EQ(tl.acc_regs_per_thread, 128.0);
  EXPECT_EQ(h100.regs_per_sm, 65536);
  EXPECT_EQ(h100.max_threads_per_sm, 2048);
  EXPECT_EQ(h100.reg_alloc_unit, 256);
  EXPECT_EQ(h100.regs_per_sm / h100.max_threads_per_sm, 32);
  EXPECT_EQ(tl.blocks_by_regs, 4);  // 128 regs x 128 threads = 16384 per block
  EXPECT_EQ(tl.blocks_per_sm, 4);
  // Allocation granularity: 129 registers round up to 4352 per warp (17 x 256).
  lg::TileConfig t2 = t;
  t2.extra_regs_per_thread = 1;
  EXPECT_EQ(lg::analyze_tile(d, t2, h100).blocks_by_regs, 65536 / (4352 * 4));
}

// Seed 1.2 / CATLASS: tiled reads b*MNK*(1/m1 + 1/n1) plus the output.
TEST(LedgerSeed, TiledTrafficFormula) {
  const GemmDesc d = square(4096, DType::F16);
  const lg::TileConfig t{
      .block_m = 128, .block_n = 256, .block_k = 64, .stages = 4, .threads = 256};
  const lg::TileLedger tl = lg::analyze_tile(d, t, machine("h200"));
  const double mnk = 4096.0 * 4096 * 4096;
  EXPECT_DOUBLE_EQ(tl.dram_read_bytes, 2 * mnk * (1.0 / 128 + 1.0 / 256));
  EXPECT_DOUBLE_EQ(tl.dram_write_bytes, 2.0 * 4096 * 4096);
}

// Seed 4.1: split-K keeps the reads and multiplies the write-out by the split count (b*MNK/k).
TEST(LedgerSeed, SplitKWriteOut) {
  GemmDesc d = square(256, DType::F16);
  d.k = 32768;
  lg::TileConfig t{.block_m = 128, .block_n = 128, .block_k = 64, .stages = 4, .threads = 256};
  const lg::TileLedger one = lg::analyze_tile(d, t, machine("h200"));
  t.split_k = 8;
  const lg::TileLedger eight = lg::analyze_tile(d, t, machine("h200"));
  EXPECT_DOUBLE_EQ(eight.dram_read_bytes, one.dram_read_bytes);
  EXPECT_DOUBLE_EQ(eight.dram_write_bytes, 8 * one.dram_write_bytes);
  EXPECT_DOUBLE_EQ(eight.split_k_write_bytes, 7 * 2.0 * 256 * 256);
  EXPECT_EQ(eight.work_units, 8 * one.tiles);
}

// Tutorial 02-03: the 4x4x4 example. Naive: 128 reads, 16 writes; 2x2 tiles: 64; one 4x4: 32.
TEST(LedgerSeed, TutorialLogicalReadCounts) {
  const lg::ReadCounts naive = lg::logical_reads(4, 4, 4, 1, 1);
  EXPECT_EQ(naive.reads, 128);
  EXPECT_EQ(naive.writes, 16);
  EXPECT_EQ(lg::logical_reads(4, 4, 4, 2, 2).reads, 64);
  EXPECT_EQ(lg::logical_reads(4, 4, 4, 4, 4).reads, 32);
  EXPECT_EQ(lg::logical_reads(4, 4, 4, 4, 4).writes, 16);
  // The walked loop nests agree (K steps of 1, 2 and 4 do not change the count).
  EXPECT_EQ(lg::logical_reads_by_walking(4, 4, 4, 1, 1, 1).reads, 128);
  EXPECT_EQ(lg::logical_reads_by_walking(4, 4, 4, 2, 2, 2).reads, 64);
  EXPECT_EQ(lg::logical_reads_by_walking(4, 4, 4, 4, 4, 4).reads, 32);
  EXPECT_EQ(lg::logical_reads_by_walking(4, 4, 4, 4, 4, 1).reads, 32);
}

// Tutorial 04: the ideal ledger 2(MK + KN + MN) bytes, I = 2MNK / bytes; M = 1 is memory-bound.
TEST(LedgerSeed, TutorialDecodeVersusPrefill) {
  GemmDesc d = square(4096, DType::BF16);
  d.m = 1;
  const lg::ProblemLedger decode = lg::analyze(d, 0.0, machine("h200"));
  EXPECT_DOUBLE_EQ(decode.min_bytes, 2.0 * (1 * 4096 + 4096.0 * 4096 + 1 * 4096));
  EXPECT_DOUBLE_EQ(decode.arithmetic_intensity, 2.0 * 4096 * 4096 / decode.min_bytes);
  EXPECT_STREQ(decode.bound(), "memory");
  d.m = 8192;
  EXPECT_STREQ(lg::analyze(d, 0.0, machine("h200")).bound(), "compute");
}

// Seed 1.5 / CATLASS matmul_fast_tuning: fp16 L1<128,256,256> L0<128,256,64> with double
// buffers: L1 384 KB, L0A 32 KB, L0B 64 KB, L0C 128 KB; fp32 L1<128,128,256> L0<128,128,64>:
// L1 512 KB, L0A 64 KB, L0B 64 KB, L0C 64 KB. All within 910B's 512/64/64/128 KB.
TEST(LedgerSeed, CatlassCapacityConstraints) {
  const lg::Machine& npu = machine("ascend-910b");
  EXPECT_TRUE(npu.modelled_only);
  EXPECT_EQ(npu.l1_bytes, 512 * 1024);
  EXPECT_EQ(npu.l0a_bytes, 64 * 1024);
  EXPECT_EQ(npu.l0b_bytes, 64 * 1024);
  EXPECT_EQ(npu.l0c_bytes, 128 * 1024);
  GemmDesc d = square(4096, DType::F16);
  const lg::AscendLedger fp16 = lg::analyze_ascend(d, lg::AscendTile{}, npu);
  EXPECT_EQ(fp16.l1_bytes, 393216);
  EXPECT_EQ(fp16.l0a_bytes, 32768);
  EXPECT_EQ(fp16.l0b_bytes, 65536);
  EXPECT_EQ(fp16.l0c_bytes, 131072);
  EXPECT_TRUE(fp16.fits);
  EXPECT_NE(fp16.note.find("modelled only"), std::string::npos);
  lg::AscendTile f32{.m1 = 128, .n1 = 128, .k1 = 256, .m0 = 128, .n0 = 128, .k0 = 64};
  f32.in_bytes = 4;
  const lg::AscendLedger a32 = lg::analyze_ascend(d, f32, npu);
  EXPECT_EQ(a32.l1_bytes, 524288);
  EXPECT_EQ(a32.l0a_bytes, 65536);
  EXPECT_EQ(a32.l0b_bytes, 65536);
  EXPECT_EQ(a32.l0c_bytes, 65536);
  EXPECT_TRUE(a32.fits);
  // One more k1 step over L1, and L0 tiles that split M: both fail.
  lg::AscendTile bad = lg::AscendTile{};
  bad.k1 = 512;
  EXPECT_FALSE(lg::analyze_ascend(d, bad, npu).fits);
  bad = lg::AscendTile{};
  bad.m0 = 64;
  const lg::AscendLedger split_m = lg::analyze_ascend(d, bad, npu);
  EXPECT_FALSE(split_m.fits);
  bool m_rule_failed = false;
  for (const auto& c : split_m.constraints) m_rule_failed |= c.item == "m0 = m1" && !c.pass;
  EXPECT_TRUE(m_rule_failed);
}

// CATLASS 04_matmul_summary: reads 2B*MNK*(1/m1 + 1/n1), writes 2B*MN; MultiCoreSplitK writes
// 2B*MNK/k (K/k pieces).
TEST(LedgerSeed, CatlassReadWriteVolumes) {
  GemmDesc d = square(4096, DType::F16);
  const lg::AscendLedger a = lg::analyze_ascend(d, lg::AscendTile{}, machine("ascend-910b"));
  const double mnk = 4096.0 * 4096 * 4096;
  EXPECT_DOUBLE_EQ(a.read_bytes, 2 * mnk * (1.0 / 128 + 1.0 / 256));
  EXPECT_DOUBLE_EQ(a.write_bytes, 2.0 * 4096 * 4096);
  EXPECT_EQ(a.blocks, (4096 / 128) * (4096 / 256));
  lg::AscendTile s{};
  s.split_k = 4;  // k = K / 4
  const lg::AscendLedger sk = lg::analyze_ascend(d, s, machine("ascend-910b"));
  EXPECT_DOUBLE_EQ(sk.read_bytes, a.read_bytes);
  EXPECT_DOUBLE_EQ(sk.write_bytes, 2 * mnk / (4096 / 4));
}

// Seed 6.1: M >= N -> SwizzleOffset 3, Direction 0; M < N -> Direction 1.
TEST(LedgerSeed, CatlassSwizzleRule) {
  EXPECT_EQ(lg::ascend_swizzle(4096, 1024).offset, 3);
  EXPECT_EQ(lg::ascend_swizzle(4096, 1024).direction, 0);
  EXPECT_EQ(lg::ascend_swizzle(1024, 1024).direction, 0);
  EXPECT_EQ(lg::ascend_swizzle(1024, 4096).offset, 3);
  EXPECT_EQ(lg::ascend_swizzle(1024, 4096).direction, 1);
}

// The datasheet figures.
TEST(LedgerSeed, DatasheetMachines) {
  const lg::Machine& h100 = machine("h100-sxm");
  EXPECT_DOUBLE_EQ(h100.peak_of(lg::PeakClass::FP16), 989.4e12);
  EXPECT_DOUBLE_EQ(h100.peak_of(lg::PeakClass::FP8), 1978.9e12);
  EXPECT_DOUBLE_EQ(h100.dram_bytes_per_s, 3.35e12);
  EXPECT_EQ(h100.sm_count, 132);
  EXPECT_EQ(h100.smem_per_block, 227 * 1024);
  const lg::Machine& h200 = machine("h200");
  EXPECT_DOUBLE_EQ(h200.dram_bytes_per_s, 4.8e12);
  EXPECT_EQ(h200.l2_bytes, 60LL * 1024 * 1024);
  EXPECT_DOUBLE_EQ(h200.peak_of(lg::PeakClass::FP16), h100.peak_of(lg::PeakClass::FP16));
  const lg::Machine& meas = machine("h200-measured");
  EXPECT_DOUBLE_EQ(meas.peak_of(lg::PeakClass::FP16), 760e12);
  EXPECT_DOUBLE_EQ(meas.dram_bytes_per_s, 4.1e12);
  EXPECT_NE(machine("a100").name, "");
}
