// KernelConfig: printing, reading back, and every registered kernel's config filled and
// readable by the ledger.
#include "dispatch/kernel_config.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "dispatch/registry.hpp"
#include "ledger/machine.hpp"
#include "ledger/tile_ledger.hpp"

namespace gemmkit::dispatch {
namespace {

using sched::Mode;

const KernelConfig kSm90{
    .tile_m = 128,
    .tile_n = 256,
    .tile_k = 64,
    .stages = 4,
    .threads = 384,
    .warpgroups = 3,
    .cluster_m = 2,
    .cluster_n = 1,
    .modes = static_cast<ModeSet>(mode_bit(Mode::DataParallel) | mode_bit(Mode::SplitK)),
    .raster_group = 8,
    .swizzle = Swizzle::B128,
    .isa = Isa::Wgmma};

TEST(KernelConfig, PrintsEveryField) {
  EXPECT_EQ(to_string(kSm90),
            "128x256x64 stages=4 threads=384 warpgroups=3 cluster=2x1 "
            "modes=data_parallel|split_k raster=8 swizzle=128B isa=wgmma");
  const KernelConfig cpu{
      .tile_m = 96, .tile_n = 2048, .tile_k = 256, .frag_m = 6, .frag_n = 16, .isa = Isa::Avx2};
  EXPECT_EQ(to_string(cpu),
            "96x2048x256 frag=6x16 stages=1 threads=1 warpgroups=0 cluster=1x1 "
            "modes=data_parallel raster=0 swizzle=none isa=avx2");
}

TEST(KernelConfig, RoundTripsThroughItsText) {
  std::vector<KernelConfig> configs{kSm90, KernelConfig{.tile_m = 1, .tile_n = 1, .tile_k = 1}};
  for (Isa isa : {Isa::Portable, Isa::Avx2, Isa::Avx512, Isa::CudaSimt, Isa::MmaSync})
    for (Swizzle sw : {Swizzle::None, Swizzle::Xor16B, Swizzle::B128})
      for (ModeSet modes = 0; modes < 8; ++modes) {
        KernelConfig c = kSm90;
        c.isa = isa;
        c.swizzle = sw;
        c.modes = modes;
        c.frag_m = modes;  // frag printed only when set
        c.frag_n = 2 * modes;
        configs.push_back(c);
      }
  for (const KernelConfig& c : configs) {
    const std::string text = to_string(c);
    EXPECT_EQ(parse_kernel_config(text), c) << text;
  }
}

TEST(KernelConfig, ParseErrorsNameThePart) {
  auto message = [](const char* text) {
    try {
      parse_kernel_config(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("128x256").find("tile"), std::string::npos);
  EXPECT_NE(message("128x256x64 cluster=2").find("cluster"), std::string::npos);
  EXPECT_NE(message("128x256x64 stages=0").find("stages"), std::string::npos);
  EXPECT_NE(message("128x256x64 modes=split_k|fast").find("fast"), std::string::npos);
  EXPECT_NE(message("128x256x64 color=red").find("color"), std::string::npos);
  EXPECT_NE(message("").find("empty"), std::string::npos);
}

TEST(KernelConfig, ModeBitsAndFilled) {
  EXPECT_TRUE(kSm90.supports(Mode::DataParallel));
  EXPECT_TRUE(kSm90.supports(Mode::SplitK));
  EXPECT_FALSE(kSm90.supports(Mode::StreamK));
  EXPECT_TRUE(is_filled(kSm90));
  EXPECT_FALSE(is_filled(KernelConfig{}));  // no tile
  KernelConfig none = kSm90;
  none.modes = 0;
  EXPECT_FALSE(is_filled(none));
}

TEST(KernelConfig, TheLedgerReadsItsTile) {
  const ledger::TileConfig t = to_tile_config(kSm90, DType::F32, 4);
  EXPECT_EQ(t.block_m, 128);
  EXPECT_EQ(t.block_n, 256);
  EXPECT_EQ(t.block_k, 64);
  EXPECT_EQ(t.stages, 4);
  EXPECT_EQ(t.threads, 384);
  EXPECT_EQ(t.split_k, 4);
  EXPECT_EQ(to_tile_config(kSm90, DType::F32, 0).split_k, 1);  // 0: none
  EXPECT_DOUBLE_EQ(isa_compute_efficiency(Isa::Avx2, 512), 0.5);
  EXPECT_DOUBLE_EQ(isa_compute_efficiency(Isa::Avx512, 512), 1.0);
  EXPECT_DOUBLE_EQ(isa_compute_efficiency(Isa::Avx512, 256), 1.0);
  EXPECT_DOUBLE_EQ(isa_compute_efficiency(Isa::Wgmma, 0), 1.0);
}

// A rows_per_sm config (the decode kernel that gives each SM whole rows of the weight): the
// ledger's tile spans the small side by the rows one SM takes of the large side, in either
// orientation, with as many stages as fill 192 KiB; its text says so and reads back.
TEST(KernelConfig, RowsPerSmTileSizedPerProblem) {
  KernelConfig c = kSm90;
  c.tile_m = 16, c.tile_n = 32, c.tile_k = 512, c.stages = 5, c.rows_per_sm = true;
  EXPECT_EQ(parse_kernel_config(to_string(c)), c) << to_string(c);
  EXPECT_NE(to_string(c).find("rows=per_sm"), std::string::npos);
  const auto tile = [&](std::int64_t m, std::int64_t n) {
    return problem_tile_config(c, GemmDesc{.m = m, .n = n, .k = 4096}, 132);
  };
  EXPECT_EQ(tile(16, 4096).block_m, 16);
  EXPECT_EQ(tile(16, 4096).block_n, 32);  // 4096 / 132 = 31.03 -> 32
  EXPECT_EQ(tile(4096, 16).block_m, 32);
  EXPECT_EQ(tile(4096, 16).block_n, 16);
  EXPECT_EQ(tile(4, 14336).block_n, 112);  // 108.6 -> 112
  EXPECT_EQ(tile(4, 100).block_n, 8);  // at least 8 rows
  const GemmDesc batched{.m = 4, .n = 100, .k = 64, .batch = 1000};  // 758 rows an SM
  EXPECT_EQ(problem_tile_config(c, batched, 132).block_n, 104);  // never past the large side
  // Stages of ~32 KiB of the weight: 8 boxes of (32 rows, 64 K); 2 of (112, 64).
  EXPECT_EQ(tile(16, 4096).block_k, 512);
  EXPECT_EQ(tile(16, 4096).stages, (192 << 10) / ((16 + 32) * 512 * 2));
  EXPECT_EQ(tile(4, 14336).block_k, 128);
  EXPECT_EQ(tile(4, 14336).stages, (192 << 10) / ((16 + 112) * 128 * 2));
  EXPECT_EQ(tile(4, 7168).block_k, 256);  // 56 rows: boxes of 64 rows, 4 of them
  // Without the flag the problem does not change the tile.
  EXPECT_EQ(problem_tile_config(kSm90, GemmDesc{.m = 16, .n = 4096, .k = 64}, 132).block_n, 256);
}

// Every kernel in the registry (CPU, and CUDA when built with it) carries a filled config
// whose tile the ledger accepts, and the ISA its name says.
TEST(KernelConfig, EveryRegisteredKernelHasAFilledConfig) {
  const GemmDesc d = with_default_lds(GemmDesc{.m = 512, .n = 512, .k = 512});
  int checked = 0;
  for (const KernelInfo& k : registry().all()) {
    EXPECT_TRUE(is_filled(k.config)) << k.name << ": " << to_string(k.config);
    EXPECT_EQ(parse_kernel_config(to_string(k.config)), k.config) << k.name;
    const ledger::Machine& m =
        k.backend == Backend::Cuda ? *ledger::find_machine("h200") : ledger::host_machine_nominal();
    EXPECT_NO_THROW(ledger::analyze_tile(d, to_tile_config(k.config, d.compute), m)) << k.name;
    for (Isa isa : {Isa::Avx2, Isa::Avx512}) {
      if (k.name.find(isa_name(isa)) != std::string::npos) {
        EXPECT_EQ(k.config.isa, isa) << k.name;
      }
    }
    if (k.name.find("splitk") != std::string::npos) {
      EXPECT_TRUE(k.config.supports(Mode::SplitK)) << k.name;
    }
    if (const auto at = k.name.find("sm90_gemm_tma_ws_"); at != std::string::npos) {
      // The name reads the CTA tile: ..._<tile_m>x<tile_n>x<tile_k>_s<stages>.
      const std::string tile = k.name.substr(at + std::string("sm90_gemm_tma_ws_").size());
      EXPECT_EQ(tile.substr(0, tile.find('_')), std::to_string(k.config.tile_m) + "x" +
                                                    std::to_string(k.config.tile_n) + "x" +
                                                    std::to_string(k.config.tile_k))
          << k.name;
      EXPECT_TRUE(k.config.tile_m == 64 || k.config.tile_m == 128) << k.name;
      EXPECT_EQ(k.config.threads, 384) << k.name;
      EXPECT_EQ(k.config.warpgroups, 3) << k.name;
      EXPECT_TRUE(k.config.supports(Mode::SplitK)) << k.name;
    }
    ++checked;
  }
  EXPECT_GE(checked, 10);  // the reference, five CPU rungs, the portable family at least
}

}  // namespace
}  // namespace gemmkit::dispatch
