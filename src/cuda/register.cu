// Registers every CUDA kernel (ladder rungs, production kernels) in the kernel registry.
#include <cuda_runtime.h>

#include <algorithm>

#include "core/status.hpp"
#include "cuda/gemv/gemv.hpp"
#include "cuda/ladder/ladder.hpp"
#include "cuda/sm90/sm90.hpp"
#include "dispatch/registry.hpp"

namespace gemmkit::dispatch {

namespace {

using LadderRun = Status (*)(const cuda_ladder::Problem&, cudaStream_t);

// The ladder takes device pointers (the front door checked the arguments) and the stream of
// the options; launch errors come back as ExecutionFailed, errors of the kernel itself at the
// caller's next synchronization.
KernelInfo ladder_kernel(std::string name, std::string config, LadderRun run) {
  return KernelInfo{
      .name = std::move(name),
      .backend = Backend::Cuda,
      .role = KernelRole::Ladder,
      .config = std::move(config),
      .priority = 0,
      .can_implement = [](const GemmDesc& d) { return cuda_ladder::can_implement(d); },
      .run = [run](const GemmDesc& d, const GemmArgs& a, const Options& o) -> Status {
        if (!cuda_available())
          return GEMMKIT_ERROR(StatusCode::ArchMismatch, Arg::Backend, "no usable CUDA device");
        return run(cuda_ladder::make_problem(d, a), static_cast<cudaStream_t>(o.stream));
      },
      .workspace_bytes = {},
  };
}

// One CTA tile configuration of the sm90 TMA + wgmma warp-specialized kernel family.
KernelInfo sm90_kernel(sm90::TileConfig cfg, int priority) {
  const std::string tile = "128x" + std::to_string(cfg.blk_n) + "x64";
  const int stages = sm90::stages_for(cfg.blk_n);
  const std::string cluster = cfg.cluster > 1 ? "_c" + std::to_string(cfg.cluster) : "";
  return KernelInfo{
      .name = "cuda.sm90_gemm_tma_ws_" + tile + "_s" + std::to_string(stages) + cluster,
      .backend = Backend::Cuda,
      .role = KernelRole::Production,
      .config = "BM=128,BN=" + std::to_string(cfg.blk_n) + ",BK=64,STAGES=" +
                std::to_string(stages) +
                ",THREADS=384,WARPGROUPS=1+2,MMA=wgmma.m64n" + std::to_string(cfg.blk_n) +
                "k16,COPY=tma,SWIZZLE=128B,RASTER=group8,SCHEDULE=persistent,CLUSTER=" +
                std::to_string(cfg.cluster) + "x1" + (cfg.cluster > 1 ? ",MULTICAST=B" : ""),
      .priority = priority,
      .can_implement = [cfg](const GemmDesc& d) -> Status {
        if (Status s = sm90::can_implement(d); !s) return s;
        if (cfg.large_m && std::min(d.m, d.n) > 64)
          return GEMMKIT_UNSUPPORTED("the 128x64 sm90 tile serves M or N <= 64 (decode)");
        return {};
      },
      // Options::split_k: the pieces asked for (0: the kernel's choice, 1: none).
      .run = [cfg](const GemmDesc& d, const GemmArgs& a, const Options& o) {
        return sm90::run(cfg, o.split_k, d, a, o);
      },
      .workspace_bytes = [cfg](const GemmDesc& d, const GemmArgs* a) {
        return sm90::workspace_bytes(cfg, d, a, 0);
      },
      .pooled_workspace = true,
  };
}

}  // namespace

// Config strings are the ledger's KEY=VALUE tile vocabulary (BM, BN, BK, STAGES, THREADS; the
// other keys describe the rung and are ignored by the ledger).
void register_cuda_kernels(Registry& r) {
  r.add(ladder_kernel("cuda.ladder.rung0",
                      "BM=16,BN=16,BK=1,STAGES=1,THREADS=256,MATH=ffma_from_global",
                      cuda_ladder::run_rung0));
  r.add(ladder_kernel("cuda.ladder.rung1",
                      "BM=128,BN=128,BK=32,STAGES=1,THREADS=128,WARPS=2x2,WARP=64x64,"
                      "MMA=m16n8k16",
                      cuda_ladder::run_rung1));
  r.add(ladder_kernel("cuda.ladder.rung2",
                      "BM=128,BN=128,BK=32,STAGES=3,THREADS=128,WARPS=2x2,WARP=64x64,"
                      "MMA=m16n8k16,COPY=cp.async",
                      cuda_ladder::run_rung2));
  r.add(ladder_kernel("cuda.ladder.rung3",
                      "BM=128,BN=128,BK=32,STAGES=3,THREADS=128,WARPS=2x2,WARP=64x64,"
                      "MMA=m16n8k16,COPY=cp.async,SWIZZLE=xor16B,RASTER=group8",
                      cuda_ladder::run_rung3));
  r.add(ladder_kernel("cuda.ladder.rung4",
                      "BM=128,BN=128,BK=64,STAGES=3,THREADS=128,WARPS=2x2,WARP=64x64,"
                      "MMA=m16n8k16,COPY=tma,SWIZZLE=xor16B,RASTER=group8,FRAGMENTS=double",
                      cuda_ladder::run_rung4));
  r.add(sm90_kernel({.blk_n = 256, .cluster = 2}, 5));  // 0.55-0.65x the unclustered kernel
  r.add(sm90_kernel({.blk_n = 256}, 30));
  r.add(sm90_kernel({.blk_n = 192}, 20));
  r.add(sm90_kernel({.blk_n = 128}, 10));
  // Decode (M or N <= 64): the large side as the tile's M, split-K to fill the SMs.
  r.add(sm90_kernel({.blk_n = 64, .large_m = true}, 40));
  // M or N <= 2: one streaming pass over the large operand, no tensor cores.
  r.add(KernelInfo{
      .name = "cuda.gemv_small_n",
      .backend = Backend::Cuda,
      .role = KernelRole::Production,
      .config = "THREADS=256,WARPS=8,SMALL_N<=2,LOAD=ld.global.nc.v4,UNROLL=8,MATH=ffma",
      .priority = 50,
      .can_implement = [](const GemmDesc& d) { return gemv::can_implement(d); },
      .run = [](const GemmDesc& d, const GemmArgs& a, const Options& o) {
        return gemv::run(d, a, o);
      },
      .variant = ledger::Variant::Gemv,
  });
}

}  // namespace gemmkit::dispatch
