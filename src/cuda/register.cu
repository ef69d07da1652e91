// Registers every CUDA kernel (ladder rungs, production kernels) in the kernel registry.
#include <cuda_runtime.h>

#include <algorithm>

#include "core/status.hpp"
#include "cuda/gemv/gemv.hpp"
#include "cuda/ladder/ladder.hpp"
#include "cuda/simt/simt.hpp"
#include "cuda/sm90/sm90.hpp"
#include "dispatch/registry.hpp"

namespace gemmkit::dispatch {

namespace {

using LadderRun = Status (*)(const cuda_ladder::Problem&, cudaStream_t);

// The ladder takes device pointers (the front door checked the arguments) and the stream of
// the options; launch errors come back as ExecutionFailed, errors of the kernel itself at the
// caller's next synchronization. Not M-invariant: fallbacks whose edge paths are not checked
// bitwise.
KernelInfo ladder_kernel(std::string name, KernelConfig config, std::string note, LadderRun run) {
  return KernelInfo{
      .name = std::move(name),
      .backend = Backend::Cuda,
      .role = KernelRole::Ladder,
      .config = config,
      .note = std::move(note),
      .priority = 0,
      .can_implement = [](const GemmDesc& d) { return cuda_ladder::can_implement(d); },
      .run = [run](const GemmDesc& d, const GemmArgs& a, const LaunchPlan&,
                   const Options& o) -> Status {
        if (!cuda_available())
          return GEMMKIT_ERROR(StatusCode::ArchMismatch, Arg::Backend, "no usable CUDA device");
        return run(cuda_ladder::make_problem(d, a), static_cast<cudaStream_t>(o.stream));
      },
      .workspace_bytes = {},
  };
}

// One CTA tile configuration of the sm90 TMA + wgmma warp-specialized kernel family;
// `planned`: ranked by the planner (else reachable by name only).
KernelInfo sm90_kernel(sm90::TileConfig cfg, int priority, bool planned = true) {
  const std::string tile = std::to_string(cfg.blk_m) + "x" + std::to_string(cfg.blk_n) + "x64";
  const int stages = sm90::stages_for(cfg.blk_m, cfg.blk_n);
  // Stream-K where the tile has it, never on large_m.
  const bool streamk = !cfg.large_m && sm90::stream_k_tile(cfg.blk_m, cfg.blk_n);
  const std::string cluster = cfg.cluster > 1 ? "_c" + std::to_string(cfg.cluster) : "";
  return KernelInfo{
      .name = "cuda.sm90_gemm_tma_ws_" + tile + "_s" + std::to_string(stages) + cluster,
      .backend = Backend::Cuda,
      .role = KernelRole::Production,
      .config = {.tile_m = cfg.blk_m,
                 .tile_n = cfg.blk_n,
                 .tile_k = 64,
                 .stages = stages,
                 .threads = 384,
                 .warpgroups = 3,  // one producer, two consumers (64 rows or half the K each)
                 .cluster_m = cfg.cluster,
                 .cluster_n = 1,
                 .modes = static_cast<ModeSet>(mode_bit(sched::Mode::DataParallel) |
                                               mode_bit(sched::Mode::SplitK) |
                                               (streamk ? mode_bit(sched::Mode::StreamK) : 0)),
                 .raster_group = 8,
                 .swizzle = Swizzle::B128,
                 .isa = Isa::Wgmma},
      .note = "wgmma.m64n" + std::to_string(cfg.blk_n) + "k16, TMA loads, persistent" +
              (cfg.cluster > 1 ? ", TMA multicast of B" : ""),
      .priority = priority,
      .can_implement = [cfg](const GemmDesc& d) -> Status {
        if (Status s = sm90::can_implement(d); !s) return s;
        if (cfg.large_m && std::min(d.m, d.n) > 64)
          return GEMMKIT_UNSUPPORTED("the 128x64 sm90 tile serves M or N <= 64 (decode)");
        if (cfg.large_m && gemv::can_implement(d))
          return GEMMKIT_UNSUPPORTED("the small-N kernel serves this problem (M or N <= 2)");
        return {};
      },
      .run = [cfg](const GemmDesc& d, const GemmArgs& a, const LaunchPlan& plan,
                   const Options& o) { return sm90::run(cfg, plan.mode, plan.split, d, a, o); },
      .workspace_bytes =
          [cfg](const GemmDesc& d, const GemmArgs* a, const LaunchPlan& plan) {
            return sm90::workspace_bytes(cfg, plan.mode, d, a, plan.split, plan.dynamic, plan.sms);
          },
      .pooled_workspace = true,
      .planned = planned,
      // Data-parallel: one CTA tile sums its K steps in order, its orientation follows D's
      // layout; large_m runs the transpose when N > M, so the orientation follows M.
      .m_invariant = !cfg.large_m,
  };
}

// The f32 / f64 kernels of src/cuda/simt: A, B, C and D all of `t`, accumulated in `t`.
// Data-parallel only. M-invariant: an output element sums its K in order, whatever the tile's
// place, and the orientation follows D's layout.
template <class T>
KernelInfo simt_kernel(std::string name, KernelConfig config, std::string note, DType t,
                       Status (*run)(const gpu::Problem&, T, T, cudaStream_t)) {
  return KernelInfo{
      .name = std::move(name),
      .backend = Backend::Cuda,
      .role = KernelRole::Production,
      .config = config,
      .note = std::move(note),
      .priority = 0,
      .can_implement = [t](const GemmDesc& d) { return simt::can_implement(d, t); },
      .run = [run](const GemmDesc& d, const GemmArgs& a, const LaunchPlan&,
                   const Options& o) -> Status {
        if (!cuda_available())
          return GEMMKIT_ERROR(StatusCode::ArchMismatch, Arg::Backend, "no usable CUDA device");
        return run(gpu::make_problem(d, a), static_cast<T>(a.alpha), static_cast<T>(a.beta),
                   static_cast<cudaStream_t>(o.stream));
      },
      .workspace_bytes = {},
      .m_invariant = true,
  };
}

}  // namespace

void register_cuda_kernels(Registry& r) {
  r.add(
      ladder_kernel("cuda.ladder.rung0",
                    {.tile_m = 16, .tile_n = 16, .tile_k = 1, .threads = 256, .isa = Isa::CudaSimt},
                    "FFMA from global memory", cuda_ladder::run_rung0));
  r.add(ladder_kernel(
      "cuda.ladder.rung1",
      {.tile_m = 128, .tile_n = 128, .tile_k = 32, .threads = 128, .isa = Isa::MmaSync},
      "shared memory + m16n8k16, warps 2x2 of 64x64", cuda_ladder::run_rung1));
  r.add(ladder_kernel("cuda.ladder.rung2",
                      {.tile_m = 128,
                       .tile_n = 128,
                       .tile_k = 32,
                       .stages = 3,
                       .threads = 128,
                       .isa = Isa::MmaSync},
                      "cp.async ring, warps 2x2 of 64x64", cuda_ladder::run_rung2));
  r.add(ladder_kernel("cuda.ladder.rung3",
                      {.tile_m = 128,
                       .tile_n = 128,
                       .tile_k = 32,
                       .stages = 3,
                       .threads = 128,
                       .raster_group = 8,
                       .swizzle = Swizzle::Xor16B,
                       .isa = Isa::MmaSync},
                      "cp.async ring, swizzled shared memory, grouped raster",
                      cuda_ladder::run_rung3));
  r.add(ladder_kernel("cuda.ladder.rung4",
                      {.tile_m = 128,
                       .tile_n = 128,
                       .tile_k = 64,
                       .stages = 3,
                       .threads = 128,
                       .raster_group = 8,
                       .swizzle = Swizzle::Xor16B,
                       .isa = Isa::MmaSync},
                      "TMA loads, double-buffered fragments", cuda_ladder::run_rung4));
  // f32 (exact, never TF32) and f64: the only CUDA kernels of these types.
  r.add(simt_kernel<float>(
      "cuda.sgemm_ffma_128x128x16_s3",
      {.tile_m = 128,
       .tile_n = 128,
       .tile_k = 16,
       .stages = 3,
       .threads = 256,
       .raster_group = 8,
       .isa = Isa::CudaSimt},
      "FFMA, 8x8 outputs a thread, cp.async ring (K-major operands transposed on the way)",
      DType::F32, simt::run_sgemm_ffma));
  r.add(simt_kernel<double>("cuda.dgemm_dmma_128x128x16_s4",
                            {.tile_m = 128,
                             .tile_n = 128,
                             .tile_k = 16,
                             .stages = 4,
                             .threads = 256,
                             .raster_group = 8,
                             .isa = Isa::MmaSync},
                            "DMMA mma.sync.m16n8k4.f64, warps 2x4 of 64x32, cp.async ring",
                            DType::F64, simt::run_dgemm_dmma));
  r.add(sm90_kernel({.blk_n = 256, .cluster = 2}, 5));
  r.add(sm90_kernel({.blk_n = 128, .cluster = 2}, 9));
  r.add(sm90_kernel({.blk_n = 256}, 30));
  r.add(sm90_kernel({.blk_n = 192}, 20));
  r.add(sm90_kernel({.blk_n = 128}, 10));
  // Few output tiles over a long K: 64-row tiles, more of them to cut into fewer, longer
  // split-K pieces (and half the partials) than 128-row tiles. The 64 x 128 tile (wgmma n = 128)
  // is planned where it measured faster than the tiles it replaces (H200, docs/PERF.md: 256 x
  // 256 x 32768 15.9 vs 16.7 us, 512^3 5.3 vs 6.0, 128 x 4096 x 4096 17.5 vs 22.4); not on
  // decode rows (M or N <= 64: 64 x 14336 x 4096 in 64-row tiles 53 us, the decode tile 34) nor
  // on operands whose rows are off 128 bytes (1000^3 13.0 vs 11.1 us). The 64 x 64 tiles by
  // name only: on the split-K suite they measured no faster than the 128 x 128 tile.
  KernelInfo k64x128 = sm90_kernel({.blk_n = 128, .blk_m = 64}, 4);
  k64x128.plan_for = [](const GemmDesc& d) -> Status {
    if (std::min(d.m, d.n) <= 64)
      return GEMMKIT_UNSUPPORTED("decode rows (M or N <= 64) are the decode kernels'");
    const auto rows_128b = [](const MatrixDesc& o) {
      return o.ld * dtype_bits(o.dtype) / 8 % 128 == 0;
    };
    if (!rows_128b(d.a) || !rows_128b(d.b))
      return GEMMKIT_UNSUPPORTED("A's or B's rows are off 128 bytes");
    return {};
  };
  r.add(std::move(k64x128));
  r.add(sm90_kernel({.blk_n = 64, .blk_m = 64}, 4, false));
  r.add(sm90_kernel({.blk_n = 64, .cluster = 2, .blk_m = 64}, 3, false));
  // Decode (M or N <= 64): the large side as the tile's M, split-K to fill the SMs.
  r.add(sm90_kernel({.blk_n = 64, .large_m = true}, 40));
  // M or N <= 2: one streaming pass over the large operand, no tensor cores.
  r.add(KernelInfo{
      .name = "cuda.gemv_small_n",
      .backend = Backend::Cuda,
      .role = KernelRole::Production,
      .config = {.tile_m = 8, .tile_n = 2, .tile_k = 8, .threads = 256, .isa = Isa::CudaSimt},
      .note = "up to 8 rows a CTA, 16-byte streaming loads (ld.global.nc), FFMA, no split",
      .priority = 50,
      .can_implement = [](const GemmDesc& d) { return gemv::can_implement(d); },
      .run = [](const GemmDesc& d, const GemmArgs& a, const LaunchPlan&, const Options& o) {
        return gemv::run(d, a, o);
      },
      .m_invariant = false,  // M <= 2 only, its own dot-product order
  });
  // M or N <= 16, the weight's rows K-contiguous: row blocks of the weight, each a CTA over the
  // full K or a cluster over shares of K, so no partial sum goes through global memory.
  r.add(KernelInfo{
      .name = "cuda.decode_rows_mma",
      .backend = Backend::Cuda,
      .role = KernelRole::Production,
      // The tile: the small side (<= 16) by the rows of the weight one SM takes (32 at 4096
      // rows on 132 SMs, 112 at 14336: rows_per_sm), K in stages of 128-512.
      .config = {.tile_m = 16,
                 .tile_n = 32,
                 .tile_k = 512,
                 .stages = 3,
                 .threads = 288,
                 // Split-K: only when Options::split_k forces it (the K of a row block split
                 // over a cluster of 2 to 4 CTAs); otherwise the kernel cuts K itself.
                 .modes = static_cast<ModeSet>(mode_bit(sched::Mode::DataParallel) |
                                               mode_bit(sched::Mode::SplitK)),
                 .swizzle = Swizzle::B128,
                 .isa = Isa::MmaSync,
                 .rows_per_sm = true},
      .note = "row blocks of the weight (rows sized to fill the SMs), each a CTA over the full "
              "K or a cluster of 2-4 CTAs over shares of K (sums added through shared memory), "
              "TMA ring of (rows, 64) boxes, mma.sync by 8 consumer warps (16 for blocks of up "
              "to 32 rows; threads lists the 8-warp team's)",
      .priority = 70,
      .can_implement = [](const GemmDesc& d) { return gemv::decode_rows_can_implement(d); },
      .run = [](const GemmDesc& d, const GemmArgs& a, const LaunchPlan&,
                const Options& o) { return gemv::decode_rows_run(d, a, o); },
      .workspace_bytes =
          [](const GemmDesc& d, const GemmArgs* a, const LaunchPlan& plan) {
            return gemv::decode_rows_workspace_bytes(d, a, plan.sms);
          },
      .pooled_workspace = true,
      .m_invariant = false,  // M or N <= 16 only, the large side as M, rows sized to the SMs
  });
}

}  // namespace gemmkit::dispatch
