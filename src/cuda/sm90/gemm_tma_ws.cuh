// sm90_gemm_tma_ws: the Hopper production GEMM. mainloop x epilogue x scheduler:
//   - mainloop: one producer warpgroup (one elected thread issues TMA loads of 128-byte
//     swizzled (rows, 64) boxes into a ring of STAGES stages guarded by full / empty
//     mbarriers) and two consumer warpgroups, each multiplying its 64 x BLK_N half of a
//     128-row CTA tile, or, in a 64-row tile, alternate stages of the work item whole (the
//     two sums added through shared memory before the epilogue: two wgmma chains where one
//     would leave the tensor cores idle between small groups; whole stages rather than half
//     of each stage's K steps: twice the multiplications a wait, 0.1-1.1 us faster a
//     split-K call on the H100), with wgmma.mma_async (both operands from shared memory,
//     one wgmma group kept in flight: a stage is released when the consumer's group after
//     it has been issued);
//   - epilogue: accumulators straight from registers to global memory where D's rows are
//     16-byte aligned (src/cuda/epilogue.cuh: alpha, beta, C read only when beta != 0, f32 /
//     f16 / bf16), else through a per-warp buffer in shared memory so that stores write whole
//     row segments (row_epilogue.cuh), predicated at the edges;
//     while the consumers store, the producer already fills the ring for the next tile; the
//     consumers hold the parameters the epilogue and the scheduler read in registers
//     (cuda/in_registers.cuh), not reading them from the parameter bank on the way;
//   - split-K (scheduler mode SplitK): each piece writes its accumulators to the workspace,
//     summed in a fixed order by the reduction kernel launched next (split_reduce.cuh);
//     stream-K (StreamK): the last tiles' K-iterations spread evenly over the CTAs, a tile's
//     owner adding the pieces parked by the following workers, in order (stream_fixup.cuh);
//   - scheduler: a persistent grid of one CTA per SM walking src/sched's work list, or, in
//     the dynamic data-parallel mode, taking tiles from a counter (tile_feed.cuh); with
//     CLUSTER = 2, pairs of CTAs (a cluster) take vertically adjacent tiles and each loads
//     half of their shared B tile, multicast into both CTAs' shared memory.
// Register budget (setmaxnreg): producer 56 (its scheduler arithmetic spills at 40),
// consumers 224: 128 * 56 + 256 * 224 <= 64K. ptxas -v: 168 at launch, no spills.
#pragma once
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cuda/ptx>

#include "cuda/epilogue.cuh"
#include "cuda/in_registers.cuh"
#include "cuda/problem.hpp"
#include "cuda/ptx/sm90.cuh"
#include "cuda/ptx/wgmma.cuh"
#include "cuda/sm90/partial_tile.cuh"
#include "cuda/sm90/row_epilogue.cuh"
#include "cuda/sm90/stream_fixup.cuh"
#include "cuda/sm90/tile_feed.cuh"
#include "cuda/sm90/tma_maps.hpp"
#include "cuda/tma/tensor_map.cuh"
#include "sched/tile_scheduler.hpp"

// Timeline marks (points 0-7 of a call, read by bench/micro/sm90_timeline.cu, which defines
// GEMMKIT_SM90_MARK before including this file); nothing otherwise.
#ifndef GEMMKIT_SM90_MARK
#define GEMMKIT_SM90_MARK(point)
#endif

namespace gemmkit::sm90 {

using gpu::Params;
using std::int64_t;
using std::uint32_t;
using std::uint64_t;

// One CTA tile configuration. AK / BK: A / B are K-major in global memory (else MN-major).
// CLUSTER: CTAs along M sharing (and multicasting) each B tile. BLK_M: 128 (the two consumer
// warpgroups take 64 rows each, wgmma's M) or 64 (they share the rows and take alternate
// stages: split-K's long pieces on few output tiles).
template <class T, int BLK_N, int STAGES, bool AK, bool BK, int CLUSTER, int BLK_M_ = 128>
struct GemmTmaWs {
  // ---- preconditions
  static constexpr int BLK_M = BLK_M_;
  static constexpr int BLK_K = 64;  // one 128-byte swizzle row of 16-bit elements
  static constexpr int kConsumers = 2;
  static_assert(BLK_M == 64 || BLK_M == 128, "64 rows per consumer, or 64 shared by both");
  static constexpr bool kShareRows = BLK_M == 64;  // the consumers take alternate stages
  static constexpr int kReleasers = kShareRows ? 1 : kConsumers;  // consumers reading a stage
  static constexpr int kTileThreads = 2 * BLK_M;   // consumer threads holding the summed tile
  static constexpr int kThreads = 128 * (1 + kConsumers);
  static constexpr int kBox = 64 * BLK_K;  // elements of one (64, 64) MN-major box
  static_assert(BLK_N % 64 == 0 && BLK_N <= 256, "MN-major B loads (64, 64) boxes; wgmma N <= 256");
  static_assert(STAGES >= 2, "a ring needs two stages to overlap copy and math");
  static_assert(CLUSTER == 1 || CLUSTER == 2, "clusters of one or two CTAs");
  static_assert(BLK_N % (8 * CLUSTER) == 0, "K-major B: whole 8-row swizzle atoms per CTA");
  static constexpr int kBRows = BLK_N / CLUSTER;  // rows of B this CTA loads (K-major box)
  static constexpr bool kStreamK = stream_k_tile(BLK_M, BLK_N);

  // ---- shared memory
  struct alignas(1024) Stage {
    T a[BLK_M * BLK_K];  // (BLK_M, BLK_K) K-major, or BLK_M/64 boxes of (BLK_K, 64) M-major
    T b[BLK_N * BLK_K];  // (BLK_N, BLK_K) K-major, or BLK_N/64 boxes of (BLK_K, 64) N-major
  };
  // Staged-row buffers: one per consumer warp; a 64-row tile's handoff of one warpgroup's
  // sums (BLK_N / 2 floats a thread) runs through them too, so there are enough to hold it.
  static constexpr int kHandoffFloats = kShareRows ? BLK_N / 2 * 128 : 0;
  static constexpr int kRowBuffers =
      std::max(kConsumers * 4, (kHandoffFloats + kRowStageFloats - 1) / kRowStageFloats);
  struct SharedStorage {
    Stage stage[STAGES];  // 1024-byte aligned: the 128-byte swizzle's atom
    float rows[kRowBuffers][kRowStageFloats];     // each consumer warp's staged-row buffer
    TileFeed feed;                                // dynamic mode: the tiles taken
    uint64_t full[STAGES];
    uint64_t empty[STAGES];
  };
  static constexpr int kStageBytes = static_cast<int>(sizeof(Stage));
  static constexpr int kSmemBytes = static_cast<int>(sizeof(SharedStorage)) + 1024;  // + align
  static_assert(kSmemBytes <= 227 * 1024, "more shared memory than a Hopper CTA can have");
};

// Ring position {index, phase}: stage i % S of pass i / S, whose full / empty phases have
// parity (i / S) & 1.
template <int S>
struct PipelineState {
  int index = 0;
  uint32_t phase = 0;
  __device__ __forceinline__ void advance() {
    if (++index == S) index = 0, phase ^= 1;
  }
};

// wgmma descriptors of stage operands. K-major: rows of 128 B, 8-row groups 1024 B apart, K
// step 16 elements = 32 B. MN-major: rows of 64 MN elements per k, 8-k groups 1024 B apart,
// 64-element MN blocks one box (8 KiB) apart, K step 16 rows = 2048 B.
template <bool KMAJOR, class T>
__device__ __forceinline__ uint64_t operand_desc(const T* tile, int ks) {
  if constexpr (KMAJOR)
    return ptx::smem_desc_sw128(tile + ks * 16, 16, 1024);
  else
    return ptx::smem_desc_sw128(tile + ks * 16 * 64, 64 * 64 * 2, 1024);
}

template <class K, class T, int BLK_N, int STAGES, bool AK, bool BK, int CLUSTER>
__device__ __forceinline__ void producer(typename K::SharedStorage& ss, const TmaMaps& maps,
                                         const Params& p, sched::Scheduler& sch,
                                         const sched::Params& sp, const SplitWorkspace& ws,
                                         int rank) {
  const bool dynamic = CLUSTER == 1 && sp.dynamic;
  if (!p.read_ab && !dynamic) return;  // alpha == 0 or K == 0: A and B are never read
  // The descriptors (kernel parameters) and the first work item while the previous kernel in
  // the stream may still run; A and B only once it is done and its writes are visible.
  if (p.read_ab) {
    ptx::prefetch_tensormap(&maps.a);
    ptx::prefetch_tensormap(&maps.b);
  }
  PipelineState<STAGES> st;
  // The stages of one work item.
  const auto load = [&](const sched::Work& w) {
    const int m0 = static_cast<int>((w.tile_m * CLUSTER + rank) * K::BLK_M);
    const int n0 = static_cast<int>(w.tile_n * BLK_N);
    const int l = static_cast<int>(w.batch);
    for (int64_t kt = w.k_begin; kt < w.k_end; ++kt) {
      const int k0 = static_cast<int>(kt * K::BLK_K);
      ptx::mbarrier_wait(&ss.empty[st.index], st.phase ^ 1);  // a fresh barrier passes parity 1
      uint64_t* full = &ss.full[st.index];
      cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                           cuda::ptx::space_shared, full, K::kStageBytes);
      auto& s = ss.stage[st.index];
      GEMMKIT_SM90_MARK(3);  // a copy about to be issued (the first: "first copy")
      if constexpr (AK) {
        tma::load_box(s.a, maps.a, k0, m0, l, maps.a_batched, full);
      } else {
#pragma unroll
        for (int i = 0; i < K::BLK_M / 64; ++i)
          tma::load_box(s.a + i * K::kBox, maps.a, m0 + 64 * i, k0, l, maps.a_batched, full);
      }
      if constexpr (CLUSTER == 1 && BK) {
        tma::load_box(s.b, maps.b, k0, n0, l, maps.b_batched, full);
      } else if constexpr (CLUSTER == 1) {
#pragma unroll
        for (int i = 0; i < BLK_N / 64; ++i)
          tma::load_box(s.b + i * K::kBox, maps.b, n0 + 64 * i, k0, l, maps.b_batched, full);
      } else if constexpr (BK) {  // this CTA's rows of B, to every CTA of the cluster
        constexpr std::uint16_t kAll = (1u << CLUSTER) - 1;
        tma::load_box_multicast(s.b + rank * K::kBRows * K::BLK_K, maps.b, k0,
                                n0 + rank * K::kBRows, l, maps.b_batched, full, kAll);
      } else {  // MN-major: (64, 64) boxes dealt round the cluster (one box: rank 0 loads it)
        constexpr std::uint16_t kAll = (1u << CLUSTER) - 1;
#pragma unroll
        for (int box = rank; box < BLK_N / 64; box += CLUSTER)
          tma::load_box_multicast(s.b + box * K::kBox, maps.b, n0 + 64 * box, k0, l, maps.b_batched,
                                  full, kAll);
      }
      st.advance();
    }
  };
  if (dynamic) {  // tiles from the counter, handed to the consumers (tile_feed.cuh)
    cudaGridDependencySynchronize();  // the counter too: the previous launch resets it
    GEMMKIT_SM90_MARK(2);
    for (int j = 0;; ++j) {
      const int64_t t = feed_take(ss.feed, ws.flags, j, sp.tiles());
      if (t >= sp.tiles()) break;
      if (p.read_ab) load(sched::tile_at(sp, t));
    }
  } else {
    sched::Work w;
    bool more = sch.next(&w);
    cudaGridDependencySynchronize();
    GEMMKIT_SM90_MARK(2);  // the previous kernel's writes visible
    for (; more; more = sch.next(&w)) load(w);
  }
  GEMMKIT_SM90_MARK(4);  // last copy issued
}

// Releases a stage: one arrival per consumer warpgroup on the stage's empty barrier of every
// CTA of the cluster (the stage in each is written by every CTA's multicast).
template <int CLUSTER>
__device__ __forceinline__ void release(uint64_t* empty) {
  if constexpr (CLUSTER == 1) {
    cuda::ptx::mbarrier_arrive(empty);
  } else {
#pragma unroll
    for (int r = 0; r < CLUSTER; ++r) ptx::mbarrier_arrive_cluster(empty, r);
  }
}

template <class K, class T, int BLK_N, int STAGES, bool AK, bool BK, int CLUSTER>
__device__ __forceinline__ void consumer(typename K::SharedStorage& ss, const Params& params,
                                         const sched::Params& sched_params,
                                         const SplitWorkspace& ws, int c, int tid, int rank) {
  // The parameters the epilogue and the scheduler read, in registers (gpu::in_registers),
  // loaded while the first stage is on its way.
  const Params p = gpu::in_registers(params);
  const sched::Params sp = gpu::in_registers(sched_params);
  sched::Scheduler sch(sp, blockIdx.x / CLUSTER);
  // C, D and the workspace only once the previous kernel in the stream is done.
  cudaGridDependencySynchronize();
  PipelineState<STAGES> st;
  sched::Work w;
  int taken = 0;  // tiles read from the feed (dynamic)
  const auto next = [&]() -> bool {
    if (CLUSTER > 1 || !sp.dynamic) return sch.next(&w);
    const int64_t t = feed_read(ss.feed, taken++);
    if (t >= sp.tiles()) return false;
    w = sched::tile_at(sp, t);
    return true;
  };
  float acc[BLK_N / 2];  // (64, BLK_N) of this warpgroup: 8-column blocks of 4 values
  while (next()) {
#pragma unroll
    for (int i = 0; i < BLK_N / 2; ++i) acc[i] = 0.f;
    if (p.read_ab && w.k_end > w.k_begin) {
      int held = -1;  // the stage whose wgmma group may still be running
      for (int64_t kt = w.k_begin; kt < w.k_end; ++kt) {
        // A 64-row tile: the consumers take alternate stages of the work item, whole.
        if (K::kShareRows && ((kt - w.k_begin) & 1) != c) {
          st.advance();
          continue;
        }
        ptx::mbarrier_wait(&ss.full[st.index], st.phase);
        GEMMKIT_SM90_MARK(5);  // first stage arrived
        const auto& s = ss.stage[st.index];
        // This consumer's rows of the stage (a 64-row tile: all of them).
        const T* a = K::kShareRows ? s.a : AK ? s.a + c * 64 * K::BLK_K : s.a + c * K::kBox;
        ptx::wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < K::BLK_K / 16; ++ks)
          ptx::wgmma_m64k16<BLK_N, T, AK ? 0 : 1, BK ? 0 : 1>(
              acc, operand_desc<AK>(a, ks), operand_desc<BK>(s.b, ks), 1);
        ptx::wgmma_commit_group();
        ptx::wgmma_wait_group<1>();  // the previous stage's group is done: release its stage
        if (held >= 0 && tid == 0) release<CLUSTER>(&ss.empty[held]);
        held = st.index;
        st.advance();
      }
      ptx::wgmma_wait_group<0>();
      ptx::fence_operand(acc);
      GEMMKIT_SM90_MARK(6);  // accumulators complete
      if (held >= 0 && tid == 0) release<CLUSTER>(&ss.empty[held]);
    }
    // A split-K piece's place in the workspace (summed by split_reduce.cuh).
    float4* const piece =
        sp.mode == sched::Mode::SplitK && sp.splits > 1
            ? reinterpret_cast<float4*>(ws.partial) +
                  ((w.tile * CLUSTER + rank) * sp.splits + w.split) * kPartialQuads<K::BLK_M, BLK_N>
            : nullptr;
    // A 64-row tile: the two consumers' sums are added through the staged-row buffers (free:
    // each consumer reaches the first barrier after its previous epilogue). A split-K piece is
    // stored by both, half of it each (partial_tile.cuh); otherwise consumer 1 hands all its sums
    // to consumer 0, which adds them and stores the tile, and goes on to its next tile.
    if constexpr (K::kShareRows) {
      static_assert(sizeof(ss.rows) >= sizeof(acc) * 128, "the buffers hold a warpgroup's sums");
      float* const handoff = &ss.rows[0][0];
      if (piece != nullptr) {
        if (c == 0)
          store_partial_halves<BLK_N, 0>(piece, acc, handoff, tid, 2);
        else
          store_partial_halves<BLK_N, 1>(piece, acc, handoff, tid, 2);
        GEMMKIT_SM90_MARK(7);  // piece stored
        continue;
      }
      ptx::named_barrier_sync(2, 256);
      if (c == 1) {
#pragma unroll
        for (int i = 0; i < BLK_N / 2; ++i) handoff[i * 128 + tid] = acc[i];
      }
      ptx::named_barrier_sync(2, 256);
      if (c == 1) continue;
#pragma unroll
      for (int i = 0; i < BLK_N / 2; ++i) acc[i] += handoff[i * 128 + tid];
      ptx::named_barrier_sync(3, 128);  // every warp has read before any stages its rows
    }
    // ---- epilogue: warp w of the warpgroup holds rows 16w..16w+15 of its 64
    const int64_t cta_row0 = (w.tile_m * CLUSTER + rank) * K::BLK_M;
    if (piece != nullptr) {
      store_partial<BLK_N, K::kTileThreads>(piece, acc, 128 * c + tid);
      GEMMKIT_SM90_MARK(7);  // piece stored
      continue;
    }
    // Stream-K (tiles up to 192 wide: at 256 the fixup's registers beside the accumulators
    // would spill): a worker's first piece is parked for the tile's owner; the owner, whose
    // piece comes last, adds the parked pieces before the epilogue.
    if constexpr (K::kStreamK) {
      if (sp.mode == sched::Mode::StreamK && !whole_tile(sp, w)) {
        if (w.k_begin > 0) {
          stream_park<BLK_N>(ws, blockIdx.x, acc, 128 * c + tid);
          continue;
        }
        stream_gather<BLK_N>(ws, sp, blockIdx.x / CLUSTER, w.tile - sp.dp_tiles, CLUSTER, rank,
                             acc, 128 * c + tid);
      }
    }
    const int64_t row0 = cta_row0 + 64 * c + 16 * (tid / 32);
    store_warp_tile<BLK_N>(p, w.batch, acc, row0, w.tile_n * BLK_N, tid % 32,
                           ss.rows[4 * c + tid / 32]);
    GEMMKIT_SM90_MARK(7);  // tile stored
  }
}

template <class T, int BLK_N, int STAGES, bool AK, bool BK, int CLUSTER, int BLK_M = 128>
__global__ void __launch_bounds__(GemmTmaWs<T, BLK_N, STAGES, AK, BK, CLUSTER, BLK_M>::kThreads, 1)
    sm90_gemm_tma_ws_kernel(const __grid_constant__ Params p, const __grid_constant__ TmaMaps maps,
                            const __grid_constant__ sched::Params sp,
                            const __grid_constant__ SplitWorkspace ws) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using K = GemmTmaWs<T, BLK_N, STAGES, AK, BK, CLUSTER, BLK_M>;
  extern __shared__ unsigned char smem_raw[];
  const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  auto& ss = *reinterpret_cast<typename K::SharedStorage*>(smem_raw + (1024 - raw % 1024) % 1024);
  const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
  GEMMKIT_SM90_MARK(0);  // entry
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      cuda::ptx::mbarrier_init(&ss.full[s], 1);                 // the producer's expect_tx
      cuda::ptx::mbarrier_init(&ss.empty[s], K::kReleasers * CLUSTER);  // its consumers
    }
    feed_init(ss.feed, 128 * K::kConsumers);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  // The cluster's barriers are initialized before any CTA multicasts or arrives on them.
  const auto cluster_sync = [] {
    cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_release);
    cuda::ptx::barrier_cluster_wait(cuda::ptx::sem_acquire);
  };
  if constexpr (CLUSTER > 1)
    cluster_sync();
  else
    __syncthreads();
  GEMMKIT_SM90_MARK(1);  // barriers initialized
  // Launched with programmatic stream serialization: the next kernel in the stream (the
  // split-K reduction, the next GEMM) may be placed as this grid's CTAs leave; its own wait
  // holds it until this grid is done. This grid touches no global memory before the previous
  // kernel is done and its writes are visible (each role waits for that before its first
  // global access): the launch, the set-up and the first work item overlap it.
  cudaTriggerProgrammaticLaunchCompletion();
  const int rank = CLUSTER > 1 ? static_cast<int>(cuda::ptx::get_sreg_cluster_ctarank()) : 0;
  // ---- role split
  if (wg == 0) {
    ptx::setmaxnreg_dec<56>();
    sched::Scheduler sch(sp, blockIdx.x / CLUSTER);
    if (tid == 0) producer<K, T, BLK_N, STAGES, AK, BK, CLUSTER>(ss, maps, p, sch, sp, ws, rank);
  } else {
    ptx::setmaxnreg_inc<224>();
    consumer<K, T, BLK_N, STAGES, AK, BK, CLUSTER>(ss, p, sp, ws, wg - 1, tid, rank);
  }
  // No CTA leaves while a peer may still multicast into it or arrive on its barriers.
  if constexpr (CLUSTER > 1) cluster_sync();
#endif
}

}  // namespace gemmkit::sm90
