// Microbenchmark: how fast one CTA streams its split-K piece, and what limits it. 256 x 256 x
// 32768 and 128 x 128 x 65536 bf16 (A and B K-major), L2 cold (a 256 MiB read between calls).
// The production kernel (src/cuda/sm90/gemm_tma_ws.cuh, compiled here with its timeline marks)
// against its producer alone: the same scheduler, boxes and ring, with consumers that release
// each stage as it lands and multiply nothing. If the producer alone streams as slowly, the
// stream's shape (boxes, ring, CTAs per SM, the deal) is the limit; if not, the consumers are.
// Variants of the stream: L2 eviction hints on the copies, shallower rings with two CTAs per
// SM, fewer CTAs. Per call: events around one launch; per CTA (globaltimer): the first stage's
// arrival, the last stage's, and the CTA's stream rate between them.
// Build: nvcc -O3 -std=c++20 -gencode=arch=compute_90a,code=sm_90a -Isrc -Iinclude
//   --expt-relaxed-constexpr bench/micro/split_stream.cu -o split_stream -lcuda
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "cuda/sm90/gemm_tma_ws.cuh"
#include "timeline.cuh"  // the marks, before the kernel

namespace {

using namespace gemmkit;
using T = __nv_bfloat16;

// The copy hint: none, or an L2 eviction priority for the operand lines.
enum class Hint { None, EvictFirst, EvictLast };
// What the consumer warpgroups do with the stages (stream_only). Release: one thread of each
// waits for every stage and releases it (the others leave); Spin: every thread waits, one
// releases; ShareK: both multiply every stage, half its K steps each (the production kernel's
// 64-row tile); Alternate: consumer c multiplies every other stage whole (stages c, c + 2, ...);
// Rows: each multiplies its 64 rows of every stage (the production kernel's 128-row tile).
// MathOnly: as ShareK, on stages never loaded (no copies, no waits): the multiplications' own
// rate. With wgmma, G groups stay in flight (a stage is released when the group G after it is
// issued), and the K steps go round ACCS accumulator sets (independent wgmma chains, summed
// at the end).
// RowsStore: as Rows, then the accumulators stored as the production kernel stores a piece.
enum class Consumer { Release, Spin, ShareK, Alternate, Rows, MathOnly, RowsStore };

template <Hint H>
__device__ __forceinline__ void load_2d(void* dst, const CUtensorMap& map, int c0, int c1,
                                        std::uint64_t* bar) {
  const auto d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  const auto b = static_cast<unsigned>(__cvta_generic_to_shared(bar));
  if constexpr (H == Hint::None) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3}], [%4];" ::"r"(d),
        "l"(&map), "r"(c0), "r"(c1), "r"(b)
        : "memory");
  } else {
    std::uint64_t policy;
    if constexpr (H == Hint::EvictFirst)
      asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    else
      asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"
        " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(d),
        "l"(&map), "r"(c0), "r"(c1), "r"(b), "l"(policy)
        : "memory");
  }
}

// The production kernel's producer (one thread, the scheduler's pieces, (64, rows) boxes of A
// and B into a ring of STAGES) and consumers that release each stage as it lands.
template <int BLK_M, int BLK_N, int STAGES, Hint H, Consumer C, int G, int ACCS, int PER_SM,
          int BOX, int A_ROWS>
__global__ void __launch_bounds__(384, PER_SM)
    stream_only(const __grid_constant__ sm90::TmaMaps maps, float* partial,
                const __grid_constant__ sched::Params sp) {
  struct alignas(1024) Stage {
    T a[BLK_M * 64];
    T b[BLK_N * 64];
  };
  extern __shared__ unsigned char smem_raw[];
  const auto raw = static_cast<unsigned>(__cvta_generic_to_shared(smem_raw));
  auto* stage = reinterpret_cast<Stage*>(smem_raw + (1024 - raw % 1024) % 1024);
  auto* full = reinterpret_cast<std::uint64_t*>(stage + STAGES);
  std::uint64_t* empty = full + STAGES;
  const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      cuda::ptx::mbarrier_init(&full[s], 1);
      cuda::ptx::mbarrier_init(&empty[s], C == Consumer::Alternate ? 1 : 2);
    }
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  timeline_mark(0);
  sched::Scheduler sch(sp, blockIdx.x);
  sched::Work w;
  int index = 0;
  unsigned phase = 0;
  if (wg == 0) {
    if (tid != 0 || C == Consumer::MathOnly) return;
    ptx::prefetch_tensormap(&maps.a);
    ptx::prefetch_tensormap(&maps.b);
    // Rows of A copied a stage (A_ROWS < BLK_M: what a CTA would copy if a cluster shared A).
    constexpr int kRowsA = A_ROWS > 0 ? A_ROWS : BLK_M;
    while (sch.next(&w)) {
      for (long kt = w.k_begin; kt < w.k_end; ++kt) {
        ptx::mbarrier_wait(&empty[index], phase ^ 1);
        cuda::ptx::mbarrier_arrive_expect_tx(
            cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &full[index],
            static_cast<unsigned>(sizeof(Stage)) - (BLK_M - kRowsA) * 64 * 2);
        timeline_mark(3);
        constexpr int kBoxA = BOX > 0 ? BOX : BLK_M, kBoxB = BOX > 0 ? BOX : BLK_N;
#pragma unroll
        for (int r = 0; r < kRowsA; r += kBoxA)
          load_2d<H>(stage[index].a + r * 64, maps.a, static_cast<int>(kt * 64),
                     static_cast<int>(w.tile_m * BLK_M + r), &full[index]);
#pragma unroll
        for (int r = 0; r < BLK_N; r += kBoxB)
          load_2d<H>(stage[index].b + r * 64, maps.b, static_cast<int>(kt * 64),
                     static_cast<int>(w.tile_n * BLK_N + r), &full[index]);
        if (++index == STAGES) index = 0, phase ^= 1;
      }
    }
    timeline_mark(4);
    return;
  }
  if (C == Consumer::Release && tid != 0) return;
  const int c = wg - 1;
  constexpr bool kOnly = C == Consumer::MathOnly;
  constexpr bool kMath = C == Consumer::ShareK || C == Consumer::Alternate || C == Consumer::Rows ||
                         kOnly || C == Consumer::RowsStore;
  constexpr int kStep = C == Consumer::Alternate ? 2 : 1;  // ring stages between own stages
  float acc[ACCS][BLK_N / 2] = {};
  long seq = 0;  // stages walked
  while (sch.next(&w)) {
    int issued = 0;  // this work item's groups
    for (long kt = w.k_begin; kt < w.k_end; ++kt, ++seq) {
      if (C == Consumer::Alternate && seq % 2 != c) {
        if (++index == STAGES) index = 0, phase ^= 1;
        continue;
      }
      if (!kOnly) ptx::mbarrier_wait(&full[index], phase);
      timeline_mark(5);
      if constexpr (kMath) {
        constexpr bool kRows = C == Consumer::Rows || C == Consumer::RowsStore;
        const T* a = kRows ? stage[index].a + c * 64 * 64 : stage[index].a;
        constexpr bool kHalf = C == Consumer::ShareK || kOnly;
        constexpr int kSteps = kHalf ? 2 : 4;
        const int ks0 = kHalf ? c * kSteps : 0;
        ptx::wgmma_fence();
#pragma unroll
        for (int j = 0; j < kSteps; ++j)
          ptx::wgmma_m64k16<BLK_N, T, 0, 0>(acc[j % ACCS], sm90::operand_desc<true>(a, ks0 + j),
                                            sm90::operand_desc<true>(stage[index].b, ks0 + j), 1);
        ptx::wgmma_commit_group();
        ptx::wgmma_wait_group<G>();
        if (!kOnly && ++issued > G && tid == 0)
          cuda::ptx::mbarrier_arrive(&empty[(index + 2 * STAGES - G * kStep) % STAGES]);
      } else if (tid == 0) {
        cuda::ptx::mbarrier_arrive(&empty[index]);
      }
      if (++index == STAGES) index = 0, phase ^= 1;
    }
    if constexpr (kMath) {  // the last min(issued, G) groups
      ptx::wgmma_wait_group<0>();
      // Own stages lie kStep apart, the last one kStep (or, when this consumer skipped the
      // work's last stage, kStep - 1) ring positions back.
      int last = (index + STAGES - 1) % STAGES;
      if (C == Consumer::Alternate && (seq - 1) % 2 != c) last = (last + STAGES - 1) % STAGES;
      for (int g = (issued < G ? issued : G) - 1; g >= 0; --g)
        if (!kOnly && tid == 0)
          cuda::ptx::mbarrier_arrive(&empty[(last + 2 * STAGES - g * kStep) % STAGES]);
    }
#pragma unroll
    for (int x = 0; x < ACCS; ++x) ptx::fence_operand(acc[x]);
    timeline_mark(6);
    if constexpr (C == Consumer::RowsStore) {
      const long piece = w.tile * sp.splits + w.split;
      sm90::store_partial<BLK_N, 256>(
          reinterpret_cast<float4*>(partial) + piece * sm90::kPartialQuads<BLK_M, BLK_N>, acc[0],
          128 * c + tid);
      timeline_mark(7);
    }
  }
  float sum = 0;
#pragma unroll
  for (int x = 0; x < ACCS; ++x)
#pragma unroll
    for (int i = 0; i < BLK_N / 2; ++i) sum += acc[x][i];
  if (sum == 1234.5f) g_first[0][7] = 0;  // keeps the math
}

char* g_evict = nullptr;
unsigned* g_sink = nullptr;
constexpr std::size_t kEvict = std::size_t{256} << 20;

struct Shape {
  long m, n, k, splits;
};

double med(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? -1 : v[v.size() / 2];
}

// One launch configuration, timed 15 times (the first 3 dropped).
template <int BLK_M, int BLK_N, class Fn, class Launch>
int timed(const char* what, const Shape& s, Fn fn, int smem, int ctas_per_sm, Launch launch) {
  const sched::Problem pb{
      .m = s.m, .n = s.n, .k_iters = s.k / 64, .batch = 1, .tile_m = BLK_M, .tile_n = BLK_N};
  sched::Params sp = sched::make_params(pb, sched::Mode::SplitK, 132 * ctas_per_sm, 8, s.splits, 8);
  const long units = sp.tiles() * sp.splits;
  sp.workers = std::min<long>(units, 132L * ctas_per_sm);
  if (cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) != cudaSuccess)
    return 1;
  unsigned long long(*first)[8] = nullptr, (*last)[8] = nullptr;
  cudaGetSymbolAddress(reinterpret_cast<void**>(&first), g_first);
  cudaGetSymbolAddress(reinterpret_cast<void**>(&last), g_last);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  const std::size_t n = static_cast<std::size_t>(sp.workers) * 8;
  std::vector<unsigned long long> hf(n), hl(n);
  std::vector<double> ev, first_arrival, last_med, last_max, rate_med, rate_min, stored_max;
  const double bytes = (BLK_M + BLK_N) * 64.0 * 2 * (s.k / 64 / sp.splits) * (units / sp.workers);
  for (int r = 0; r < 15; ++r) {
    cudaMemset(first, 0xff, sizeof(g_first));
    cudaMemset(last, 0, sizeof(g_last));
    evict_read<<<1056, 256>>>(reinterpret_cast<const uint4*>(g_evict), kEvict / 16, g_sink);
    cudaEventRecord(e0);
    launch(static_cast<unsigned>(sp.workers), sp);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    cudaMemcpy(hf.data(), first, n * 8, cudaMemcpyDeviceToHost);
    cudaMemcpy(hl.data(), last, n * 8, cudaMemcpyDeviceToHost);
    if (r < 3) continue;
    ev.push_back(ms * 1e3);
    unsigned long long t0 = ~0ull;
    for (long c = 0; c < sp.workers; ++c) t0 = std::min(t0, hf[c * 8]);
    std::vector<double> arrive, done, rate;
    for (long c = 0; c < sp.workers; ++c) {
      arrive.push_back((hf[c * 8 + 5] - t0) * 1e-3);
      done.push_back((hl[c * 8 + 6] - t0) * 1e-3);
      rate.push_back(bytes / ((hl[c * 8 + 6] - hf[c * 8 + 5]) * 1e-9) * 1e-9);  // GB/s
    }
    first_arrival.push_back(*std::min_element(arrive.begin(), arrive.end()));
    last_med.push_back(med(done));
    last_max.push_back(*std::max_element(done.begin(), done.end()));
    rate_med.push_back(med(rate));
    rate_min.push_back(*std::min_element(rate.begin(), rate.end()));
    unsigned long long stored = 0;
    for (long c = 0; c < sp.workers; ++c) stored = std::max(stored, hl[c * 8 + 7]);
    stored_max.push_back(stored == 0 ? -1 : (stored - t0) * 1e-3);
  }
  std::printf("%-58s %4ld CTAs %7.2f us | %5.2f | %6.2f %6.2f | %6.1f %6.1f | %6.2f\n", what,
              sp.workers, med(ev), med(first_arrival), med(last_med), med(last_max), med(rate_med),
              med(rate_min), med(stored_max));
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) std::printf("  %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}

struct Buffers {
  void *a, *b, *d;
  float* partial;
};

sm90::TmaMaps maps_for(const Buffers& buf, const Shape& s, int blk_m, int blk_n) {
  sm90::TmaMaps maps{};
  tma::encode_16bit(&maps.a, buf.a, s.k, s.m, s.k, 1, 0, 64, blk_m);
  tma::encode_16bit(&maps.b, buf.b, s.k, s.n, s.k, 1, 0, 64, blk_n);
  return maps;
}

template <int BLK_M, int BLK_N, int STAGES, Hint H, Consumer C = Consumer::Release, int G = 1,
          int ACCS = 1, int PER_SM = 1, int BOX = 0, int A_ROWS = 0>
int stream(const char* what, const Buffers& buf, const Shape& s) {
  constexpr int ctas_per_sm = PER_SM;
  const int smem = STAGES * (BLK_M + BLK_N) * 64 * 2 + 2 * STAGES * 8 + 1024;
  const auto fn = stream_only<BLK_M, BLK_N, STAGES, H, C, G, ACCS, PER_SM, BOX, A_ROWS>;
  const sm90::TmaMaps maps = maps_for(buf, s, BOX > 0 ? BOX : BLK_M, BOX > 0 ? BOX : BLK_N);
  return timed<BLK_M, BLK_N>(what, s, fn, smem, ctas_per_sm,
                             [&](unsigned grid, const sched::Params& sp) {
                               fn<<<grid, 384, smem>>>(maps, buf.partial, sp);
                             });
}

// The production kernel (A, B K-major, one CTA per SM), its pieces written to `partial`
// (the reduction is not launched: its time is not the stream's).
template <int BLK_M, int BLK_N, int STAGES>
int production(const char* what, const Buffers& buf, const Shape& s) {
  using K = sm90::GemmTmaWs<T, BLK_N, STAGES, true, true, 1, BLK_M>;
  gpu::Params p;
  p.m = s.m, p.n = s.n, p.k = s.k;
  p.a = {buf.a, s.k, 1, 0, true};
  p.b = {buf.b, s.k, 1, 0, true};
  p.d = {buf.d, s.n, 1, 0, gpu::OutType::BF16};
  p.c = p.d;
  const sm90::SplitWorkspace ws{buf.partial, nullptr};
  const auto fn = sm90::sm90_gemm_tma_ws_kernel<T, BLK_N, STAGES, true, true, 1, BLK_M>;
  const sm90::TmaMaps maps = maps_for(buf, s, BLK_M, BLK_N);
  return timed<BLK_M, BLK_N>(what, s, fn, K::kSmemBytes, 1,
                             [&](unsigned grid, const sched::Params& sp) {
                               fn<<<grid, K::kThreads, K::kSmemBytes>>>(p, maps, sp, ws);
                             });
}

}  // namespace

int main() {
  cudaMalloc(&g_evict, kEvict);
  cudaMemset(g_evict, 1, kEvict);
  cudaMalloc(&g_sink, 64);
  const std::size_t big = std::size_t{64} << 20;
  Buffers buf{};
  cudaMalloc(&buf.a, big);
  cudaMalloc(&buf.b, big);
  cudaMalloc(&buf.d, big);
  cudaMalloc(&buf.partial, std::size_t{256} << 20);
  cudaMemset(buf.a, 0, big);
  cudaMemset(buf.b, 0, big);
  std::printf(
      "event us | first stage landed (us after the first CTA's start) | last stage landed, "
      "median / last CTA | per-CTA stream GB/s, median / slowest | last piece stored\n");
  const Shape sq{256, 256, 32768, 8}, sq4{256, 256, 32768, 4}, sq16{256, 256, 32768, 16};
  const Shape sq32{256, 256, 32768, 32}, tall{128, 128, 65536, 32}, tall64{128, 128, 65536, 64};
  int rc = 0;
  using enum Consumer;
  constexpr Hint kNo = Hint::None;
  const Shape wide1{128, 7168, 2048, 1}, wide2{128, 7168, 2048, 2};
  std::printf("-- 256x256x32768, 64x64 tiles, 8 pieces: 128 CTAs\n");
  rc |= production<64, 64, 12>("production 64x64 s12", buf, sq);
  rc |= stream<64, 64, 12, kNo>("stream alone", buf, sq);
  rc |= stream<64, 64, 12, Hint::EvictFirst>("stream alone, evict_first", buf, sq);
  rc |= stream<64, 64, 12, Hint::EvictLast>("stream alone, evict_last", buf, sq);
  rc |= stream<64, 64, 12, kNo, Spin>("stream alone, every consumer thread waits", buf, sq);
  rc |= stream<64, 64, 12, kNo, MathOnly, 1, 1>("math alone (share K), 1 group held", buf, sq);
  rc |= stream<64, 64, 12, kNo, MathOnly, 1, 2>("math alone (share K), 1 held, 2 accs", buf, sq);
  rc |= stream<64, 64, 12, kNo, ShareK, 0>("share K, 0 groups held", buf, sq);
  rc |= stream<64, 64, 12, kNo, ShareK, 1>("share K, 1 group held", buf, sq);
  rc |= stream<64, 64, 12, kNo, ShareK, 3>("share K, 3 groups held", buf, sq);
  rc |= stream<64, 64, 12, kNo, ShareK, 1, 2>("share K, 1 held, 2 accs", buf, sq);
  rc |= stream<64, 64, 12, kNo, Alternate, 1>("alternate stages, 1 held", buf, sq);
  rc |= stream<64, 64, 12, kNo, Alternate, 1, 4>("alternate stages, 1 held, 4 accs", buf, sq);
  std::printf("-- 256x256x32768, fewer CTAs, or two a SM\n");
  rc |= stream<64, 64, 12, kNo>("64x64 s12, 4 pieces (64 CTAs), stream alone", buf, sq4);
  rc |= stream<64, 64, 12, kNo, ShareK, 1>("64x64 s12, 4 pieces (64 CTAs), share K, 1", buf, sq4);
  rc |= stream<128, 128, 6, kNo>("128x128 s6, 8 pieces (32 CTAs), stream alone", buf, sq);
  rc |= stream<128, 128, 6, kNo, Rows, 1>("128x128 s6, 8 pieces (32 CTAs), rows, 1", buf, sq);
  rc |= stream<64, 64, 5, kNo, Release, 1, 1, 2>("64x64 s5, 16 pieces, 2 CTAs/SM, stream alone",
                                                 buf, sq16);
  rc |= stream<64, 64, 5, kNo, ShareK, 1, 1, 2>("64x64 s5, 16 pieces, 2 CTAs/SM, share K, 1", buf,
                                                sq16);
  rc |= stream<64, 64, 5, kNo, Alternate, 1, 1, 2>("64x64 s5, 16 pieces, 2 CTAs/SM, alternate, 1",
                                                   buf, sq16);
  std::printf("-- 256x256x32768, other tiles, 128 CTAs\n");
  rc |= stream<64, 128, 8, kNo>("64x128 s8, 16 pieces, stream alone", buf, sq16);
  rc |= stream<64, 128, 8, kNo, MathOnly, 1, 1>("64x128 s8, 16 pieces, math alone", buf, sq16);
  rc |=
      stream<64, 128, 8, kNo, ShareK, 1, 2>("64x128 s8, 16 pieces, share K, 1, 2 accs", buf, sq16);
  rc |= stream<64, 128, 8, kNo, Alternate, 1, 2>("64x128 s8, 16 pieces, alternate, 1, 2 accs", buf,
                                                 sq16);
  rc |= stream<128, 64, 8, kNo>("128x64 s8, 16 pieces, stream alone", buf, sq16);
  rc |= stream<128, 64, 8, kNo, Rows, 1>("128x64 s8, 16 pieces, rows, 1", buf, sq16);
  rc |= production<128, 128, 6>("production 128x128 s6, 32 pieces", buf, sq32);
  rc |= stream<128, 128, 6, kNo>("128x128 s6, 32 pieces, stream alone", buf, sq32);
  rc |= stream<128, 128, 6, kNo, Rows, 1>("128x128 s6, 32 pieces, rows, 1", buf, sq32);
  rc |= stream<128, 128, 6, kNo, RowsStore, 1>("128x128 s6, 32 pieces, rows, 1, stored", buf, sq32);
  rc |= stream<128, 128, 6, kNo, Release, 1, 1, 1, 64>(
      "128x128 s6, 32 pieces, 64-row boxes, copy alone", buf, sq32);
  rc |= stream<128, 128, 6, kNo, Rows, 1, 1, 1, 64>("128x128 s6, 32 pieces, 64-row boxes, rows, 1",
                                                    buf, sq32);
  std::printf("-- 128x128x65536\n");
  rc |= production<64, 64, 12>("production 64x64 s12, 32 pieces", buf, tall);
  rc |= production<128, 128, 6>("production 128x128 s6, 64 pieces", buf, tall64);
  rc |= stream<128, 128, 6, kNo, Rows, 1>("128x128 s6, 64 pieces, rows, 1", buf, tall64);
  rc |=
      stream<128, 128, 6, kNo, RowsStore, 1>("128x128 s6, 64 pieces, rows, 1, stored", buf, tall64);
  std::printf("-- 128x7168x2048\n");
  rc |= production<128, 128, 6>("production 128x128 s6, 1 piece (56 CTAs)", buf, wide1);
  rc |= production<128, 128, 6>("production 128x128 s6, 2 pieces", buf, wide2);
  rc |= stream<128, 128, 6, kNo>("128x128 s6, 2 pieces, stream alone", buf, wide2);
  rc |= stream<128, 128, 6, kNo, Release, 1, 1, 1, 64, 64>(
      "128x128 s6, 2 pieces, copy alone, half of A (a pair sharing A)", buf, wide2);
  rc |= stream<128, 128, 6, kNo, Release, 1, 1, 1, 32, 32>(
      "128x128 s6, 2 pieces, copy alone, a quarter of A (four sharing)", buf, wide2);
  rc |= stream<128, 128, 6, kNo, Rows, 1>("128x128 s6, 2 pieces, rows, 1", buf, wide2);
  rc |= stream<128, 128, 6, kNo, Rows, 1, 1, 1, 64, 64>("128x128 s6, 2 pieces, rows, half of A",
                                                        buf, wide2);
  rc |= production<128, 64, 8>("production 128x64 s8, 1 piece", buf, wide1);
  rc |= stream<128, 64, 8, kNo>("128x64 s8, 1 piece, stream alone", buf, wide1);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(e));
  return rc != 0 || e != cudaSuccess ? 1 : 0;
}
