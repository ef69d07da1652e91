// Host launch of sm90_gemm_tma_ws for one tile width: the dtype x operand-arrangement x
// cluster instantiation, the dynamic shared memory limit (raised once per kernel), the
// persistent grid (one CTA per SM; with clusters, as many clusters as can be resident).
#pragma once
#include <mutex>

#include "core/status.hpp"
#include "cuda/pdl.hpp"
#include "cuda/sm90/gemm_tma_ws.cuh"
#include "cuda/sm90/sm90.hpp"
#include "cuda/sm90/split_reduce.cuh"

namespace gemmkit::sm90 {

using KernelFn = void (*)(Params, TmaMaps, sched::Params, SplitWorkspace);

struct Prepared {
  KernelFn fn = nullptr;
  int max_ctas = 0;  // resident CTAs of this kernel on the device (a multiple of the cluster)
};

template <class T, int BLK_M, int BLK_N, int STAGES, bool AK, bool BK, int CLUSTER>
Prepared prepared_kernel(int sms) {
  using K = GemmTmaWs<T, BLK_N, STAGES, AK, BK, CLUSTER, BLK_M>;
  static std::once_flag once;
  static Prepared prepared;
  std::call_once(once, [&] {
    KernelFn k = sm90_gemm_tma_ws_kernel<T, BLK_N, STAGES, AK, BK, CLUSTER, BLK_M>;
    if (cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, K::kSmemBytes) !=
        cudaSuccess)
      return;
    // The persistent grid takes every SM (clusters: every pair). Sizing it from
    // cudaOccupancyMaxActiveClusters instead measured the same (H200, 2026-12-01).
    const int max_ctas = sms / CLUSTER * CLUSTER;
    prepared = {k, max_ctas};
  });
  return prepared;
}

template <class T, int BLK_M, int BLK_N, int STAGES, int CLUSTER>
Status launch_typed(const gpu::Problem& pr, const TmaMaps& maps, const Launch& ln,
                    cudaStream_t stream) {
  // Shared memory and threads: alike for every operand arrangement.
  using K = GemmTmaWs<T, BLK_N, STAGES, true, true, CLUSTER, BLK_M>;
  const auto prepared = [](bool ak, bool bk, int sms) {
    return ak ? (bk ? prepared_kernel<T, BLK_M, BLK_N, STAGES, true, true, CLUSTER>(sms)
                    : prepared_kernel<T, BLK_M, BLK_N, STAGES, true, false, CLUSTER>(sms))
              : (bk ? prepared_kernel<T, BLK_M, BLK_N, STAGES, false, true, CLUSTER>(sms)
                    : prepared_kernel<T, BLK_M, BLK_N, STAGES, false, false, CLUSTER>(sms));
  };
  // Set up once per kernel with the device's SMs; the launch's budget (ln.sms) caps it below.
  const Prepared k = prepared(pr.a_kmajor, pr.b_kmajor, device_sm_count());
  if (k.fn == nullptr)
    return GEMMKIT_ERROR(StatusCode::ExecutionFailed, Arg::None,
                         "sm90: cannot set up the kernel (shared memory limit or cluster size)");
  const gpu::Params& p = pr.params;
  // Resident CTAs, no more than the launch's SM budget (Options::sm_count_target) allows.
  const int max_ctas = std::min(k.max_ctas, ln.sms / CLUSTER * CLUSTER);
  // The scheduler's tile is the cluster's: CLUSTER vertically adjacent CTA tiles.
  const sched::Problem sp{.m = p.m, .n = p.n, .k_iters = sched::ceil_div(p.k, K::BLK_K),
                          .batch = pr.batch, .tile_m = K::BLK_M * CLUSTER, .tile_n = BLK_N};
  // Split-K: one piece per cluster at most (run() chose the count so that they fit).
  // Stream-K: every resident cluster is a worker (the owners wait for the others' pieces).
  const bool split = ln.mode == sched::Mode::SplitK && ln.splits > 1;
  // Stream-K where the tile has it and there is something to spread.
  const bool streamk = ln.mode == sched::Mode::StreamK && p.read_ab && K::kStreamK;
  sched::Params params = sched::make_params(sp,
                                            split     ? sched::Mode::SplitK
                                            : streamk ? sched::Mode::StreamK
                                                      : sched::Mode::DataParallel,
                                            max_ctas / CLUSTER, 8, ln.splits, kStreamKMinIters);
  const int64_t units = params.tiles() * params.splits;
  if (split && units > params.workers)
    return GEMMKIT_ERROR(StatusCode::ExecutionFailed, Arg::None,
                         "sm90: more split-K pieces than resident CTAs");
  if (!streamk) params.workers = units < params.workers ? units : params.workers;
  params.dynamic = ln.dynamic && CLUSTER == 1 && !split && !streamk;
  // Programmatic dependent launch (the launch and set-up overlap the previous kernel); the
  // cluster dimension only where there is a cluster (a (1, 1, 1) one costs ~0.2 us a call).
  cudaLaunchAttribute attrs[2]{};
  unsigned n_attrs = 0;
  if (ln.pdl) attrs[n_attrs++] = gpu::pdl_attribute();
  if (CLUSTER > 1) {
    attrs[n_attrs].id = cudaLaunchAttributeClusterDimension;
    attrs[n_attrs++].val.clusterDim = {CLUSTER, 1, 1};
  }
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(params.workers * CLUSTER));
  cfg.blockDim = dim3(K::kThreads);
  cfg.dynamicSmemBytes = K::kSmemBytes;
  cfg.stream = stream;
  cfg.attrs = attrs;
  cfg.numAttrs = n_attrs;
  cudaError_t e = cudaLaunchKernelEx(&cfg, k.fn, p, maps, params, ln.ws);
  if (e == cudaSuccess) e = cudaGetLastError();
  // Split-K: the pieces are summed by the reduction kernel.
  if (e == cudaSuccess && split)
    e = launch_split_reduce<BLK_M, BLK_N>(p, params, CLUSTER, ln.ws.partial, stream, ln.pdl);
  if (e != cudaSuccess)
    return GEMMKIT_ERROR(StatusCode::ExecutionFailed, Arg::None,
                         std::string("sm90 launch: ") + cudaGetErrorString(e));
  return {};
}

#define GEMMKIT_SM90_TMA_WS_LAUNCH(BLK_M, BLK_N, CLUSTER)                                          \
  template <>                                                                                      \
  Status launch_tma_ws<BLK_M, BLK_N, CLUSTER>(const gpu::Problem& pr, const TmaMaps& maps,         \
                                              const Launch& ln, cudaStream_t stream) {             \
    constexpr int kStages = stages_for(BLK_M, BLK_N);                                              \
    return pr.in == gpu::InType::BF16                                                              \
               ? launch_typed<__nv_bfloat16, BLK_M, BLK_N, kStages, CLUSTER>(pr, maps, ln, stream) \
               : launch_typed<__half, BLK_M, BLK_N, kStages, CLUSTER>(pr, maps, ln, stream);       \
  }

}  // namespace gemmkit::sm90
