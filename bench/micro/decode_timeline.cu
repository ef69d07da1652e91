// Microbenchmark: where the time of a decode call goes under the bench's protocol. The kernel
// is the library's row-block decode kernel (src/cuda/gemv/decode_rows.cu, included here with
// its timeline marks on), launched as the library launches it (its cut, geometry, tensor map
// and programmatic launch), in CUDA graphs of back-to-back calls over rotated copies of the
// weight (more bytes than twice the L2), as `gemmkit bench` times short calls. Each CTA records
// %globaltimer at the kernel's marks; for every call, times are taken from the moment the
// previous call's grid released this one (the earliest mark 1 of any CTA): the median over
// calls of the earliest / median / latest CTA at each mark, and the gap from a call's last
// CTA to the next call's release. Shapes: x @ W^T with x (n x K, M-major as the bench's
// column-major A) and W (rows x K), bf16, D bf16.
// Build (linked against the library, whose symbols the included file's host functions call;
// with those left unresolved the loader refused the binary: "unexpected PLT reloc type 0x00"):
//   nvcc -O3 -std=c++20 -gencode=arch=compute_90a,code=sm_90a -Isrc -Iinclude
//   --expt-relaxed-constexpr bench/micro/decode_timeline.cu -o decode_timeline
//   -Lbuild-device -lgemmkit -lcuda        (add -DDECODE_NO_MARKS for decode_sweep)
// Run: decode_timeline (marked cases), decode_sweep sweep (stage sizes, depths and the K
// rotation of every decode-suite shape, unmarked), decode_sweep core (two shapes, two rings),
// decode_sweep cuts (rows a block x CTAs a block x ring depth, the team sized as the library
// sizes it, on the decode suite's 16-row shapes and 4 / 8 x 4096 x 4096), decode_sweep wide
// (W boxes a stage and ring depths). DECODE_FILL=random: hashed operands instead of zeros.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "replay_timeline.cuh"
// Built with -DDECODE_NO_MARKS: no marks (each costs a global read on the critical path, ~1 us
// a mark under the stream's load), for clean per-call times of the stage sweep.
#ifdef DECODE_NO_MARKS
#define GEMMKIT_DECODE_MARK(point)
#else
#define GEMMKIT_DECODE_MARK(point) replay_mark(point, (point) <= 2 ? 0u : 32u)
#endif
#include "cuda/gemv/decode_rows.cu"

// Two bf16 values a word, exponents in [2^-7, 2^1), from a hash of the word's index.
__global__ void decode_micro_fill(std::uint32_t* w, std::size_t words, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < words;
       i += std::size_t{gridDim.x} * blockDim.x) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u ^ seed * 40503u;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
    w[i] = (h & 0x807f807fu) | 0x3c003c00u | ((h >> 4) & 0x03800380u);
  }
}

namespace {

using namespace gemmkit;
using namespace gemmkit::gemv;

struct Case {
  int n;             // the small side (x's rows)
  long rows, k;      // W
  int split;         // forced S (0: the cut's own)
  int boxes = 0;     // > 0: W boxes (of 64 K) a stage instead of the library's
  int stages = 0;    // > 0: ring depth instead of the most that fits
  int rotate = 1;    // 0: every block starts its K loop at its first stage
  int cut_rows = 0;  // > 0: R rows a block (with `split` CTAs a block) instead of the cut's
};

const char* kPoint[8] = {"entry",       "released",  "copy issued",   "stage arrived",
                         "stages done", "warp sums", "cluster total", "done"};

int run_case(const Case& c, char* wbuf, std::size_t wbytes_all, void* x, void* d, cudaStream_t st,
             double copy_bps) {
  const std::size_t wbytes = std::size_t{2} * c.rows * c.k;
  int l2 = 0;
  cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
  const int sets = static_cast<int>(
      std::min<std::size_t>(wbytes_all / wbytes, 2 * static_cast<std::size_t>(l2) / wbytes + 2));
  const int calls = sets * std::max(1, 40 / sets);
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  gpu::Problem pr;
  gpu::Params& p = pr.params;
  p.m = c.rows, p.n = c.n, p.k = c.k;
  p.b = {x, 1, c.n, 0, true};                // x: (n, K), n contiguous
  p.d = {d, c.n, 1, 0, gpu::OutType::BF16};  // D^T: rows of W x n
  p.c = p.d;
  XSource xs{};
  std::vector<CUtensorMap> maps(sets);
  Geometry g{};
  for (int i = 0; i < sets; ++i) {
    p.a = {wbuf + i * wbytes, c.k, 1, 0, true};
    if (i == 0 && (!x_source_of(pr, p.k, &xs) || !geometry_of(p, 1, xs.kmajor, sms, c.split, &g)))
      return std::printf("no geometry\n"), 1;
    if (i == 0 && c.cut_rows > 0) {  // another cut, its stages sized as the library's
      g.rows = c.cut_rows;
      g.splits = std::max(1, c.split);
      g.rows16 = align(g.rows, 16);
      g.boxes = decode_rows_stage_boxes(g.rows, xs.kmajor);
      g.box_rows = g.chunked ? g.rows : g.rows16;
      g.nrb = ceil_div(p.m, g.rows);
      g.units = g.nrb;
    }
    if (i == 0 && (c.boxes > 0 || c.stages > 0 || c.cut_rows > 0)) {  // another ring
      if (c.boxes > 0) g.boxes = c.boxes;
      if (!lay_out_ring(p, xs.kmajor, c.stages > 0 ? c.stages : kMaxStages, &g))
        return std::printf("no geometry for %d boxes, %d stages\n", c.boxes, c.stages), 1;
    }
    g.rotate = c.rotate;
    const bool ok = g.chunked ? tma::encode_16bit_chunked(&maps[i], p.a.ptr, p.k, p.m, p.k, 1, 0,
                                                          g.rows, g.boxes)
                              : tma::encode_16bit(&maps[i], p.a.ptr, p.k, p.m, p.k, 1, 0, kBoxK,
                                                  static_cast<std::uint32_t>(g.rows));
    if (!ok) return std::printf("encode failed\n"), 1;
  }
  const int ctas =
      static_cast<int>(g.splits > 1 ? g.units * g.splits : std::min<std::int64_t>(g.units, sms));
  std::printf(
      "%2d x %5ld x %5ld (x @ W^T), cut %d rows x %d CTAs a block, %d stages of %d boxes, "
      "%d CTAs, %d sets%s:\n",
      c.n, c.rows, c.k, g.rows, g.splits, g.stages, g.boxes, ctas, sets,
      g.rotate ? "" : ", not rotated");
  const double us = replay_timeline(
      st, calls, ctas,
      [&](cudaStream_t s2, int i) {
        p.a.ptr = wbuf + (i % sets) * wbytes;
        launch_t<__nv_bfloat16>(pr, maps[i % sets], false, xs, g, sms, s2);
      },
      kPoint, 2, 7);
  std::printf("   %.2f us a call (%.1f%% of copy)\n", us, 100.0 * wbytes / (us * 1e-6) / copy_bps);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) std::printf("error: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const bool sweep = argc > 1 && std::string(argv[1]) == "sweep";
  cudaStream_t st;
  cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
  const std::size_t big = std::size_t{1} << 30;
  char *wbuf = nullptr, *dst = nullptr;
  void *x = nullptr, *d = nullptr;
  cudaMalloc(&wbuf, big);
  cudaMalloc(&dst, big);
  cudaMalloc(&x, 16 << 20);
  cudaMalloc(&d, 16 << 20);
  // Zeros, or (DECODE_FILL=random) hashed bf16 values in [-2, 2): the DRAM's power, and so its
  // clock, may depend on the bits it moves.
  const char* fill = std::getenv("DECODE_FILL");
  if (fill != nullptr && std::string(fill) == "random") {
    decode_micro_fill<<<1024, 256, 0, st>>>(reinterpret_cast<std::uint32_t*>(wbuf), big / 4, 1);
    decode_micro_fill<<<64, 256, 0, st>>>(static_cast<std::uint32_t*>(x), (16 << 20) / 4, 2);
    cudaStreamSynchronize(st);
    std::printf("operands: random\n");
  } else {
    cudaMemset(wbuf, 0, big);
    cudaMemset(x, 0, 16 << 20);
  }
  const double copy = copy_bandwidth(st, wbuf, dst, big);
  std::printf("copy 1 GiB: %.1f GB/s\n", copy / 1e9);
  cudaFree(dst);
  const Case cases[] = {
      {16, 4096, 4096, 0},       {16, 4096, 4096, 1}, {16, 4096, 4096, 0, 2},  // 16 KiB stages
      {16, 4096, 4096, 0, 8},                                                  // 64 KiB stages
      {16, 4096, 4096, 0, 4, 3},                                               // 32 KiB, 3 deep
      {16, 4096, 4096, 4},       {4, 4096, 4096, 0},  {16, 14336, 4096, 0},   {16, 4096, 14336, 0},
  };
  // The sweep: stage sizes (W boxes of 64 K) and ring depths on the decode suite's shapes.
  std::vector<Case> swept;
  const int shapes[][3] = {{16, 4096, 4096},  {8, 4096, 4096},  {4, 4096, 4096},
                           {16, 14336, 4096}, {4, 14336, 4096}, {16, 4096, 14336}};
  const int geoms[][2] = {{0, 0}, {4, 3}, {8, 2}};
  for (const auto& sh : shapes)
    for (const auto& ge : geoms)
      for (int rot = 1; rot >= 0; --rot)
        swept.push_back({sh[0], sh[1], sh[2], 0, ge[0], ge[1], rot});
  // The core: two shapes, the library's ring and 3 x 32 KiB.
  const bool core = argc > 1 && std::string(argv[1]) == "core";
  if (core) {
    swept.clear();
    for (const int m : {16, 4})
      for (const auto& ge : {std::array<int, 2>{0, 0}, std::array<int, 2>{4, 3}})
        swept.push_back({m, 4096, 4096, 0, ge[0], ge[1], 1});
  }
  // The cuts: R rows a block and S CTAs a block, ring depths.
  const bool cuts = argc > 1 && std::string(argv[1]) == "cuts";
  if (cuts) {
    swept.clear();
    const int cut[][2] = {{24, 1}, {32, 1}, {40, 1}, {64, 1}, {32, 2}, {64, 2}, {72, 2}};
    const int shapes[][3] = {{16, 4096, 4096},  {8, 4096, 4096},  {4, 4096, 4096},
                             {16, 4096, 14336}, {16, 2112, 7168}, {16, 7168, 2048}};
    for (const auto& sh : shapes) {
      swept.push_back({sh[0], sh[1], sh[2], 0});  // the library's
      for (const auto& ct : cut)
        for (const int st : {2, 3, 4, 0}) {
          if (ct[0] > 32 && st != 0 && st != 3) continue;
          Case c{sh[0], sh[1], sh[2], ct[1], 0, st, 1};
          c.cut_rows = ct[0];
          swept.push_back(c);
        }
    }
  }
  // The wide team's stages: W boxes a stage (2 = 28 KiB at 112 rows) and ring depths.
  const bool wide = argc > 1 && std::string(argv[1]) == "wide";
  if (wide) {
    swept.clear();
    const int shapes[][3] = {
        {16, 14336, 4096}, {4, 14336, 4096}, {16, 7168, 2048}, {16, 4096, 4096}};
    for (const auto& sh : shapes) {
      swept.push_back({sh[0], sh[1], sh[2], 0});  // the library's
      for (const int boxes : {2, 4, 6})
        for (const int st : {2, 3, 0}) swept.push_back({sh[0], sh[1], sh[2], 0, boxes, st, 1});
    }
  }
  int rc = 0;
  if (sweep || core || cuts || wide)
    for (const Case& c : swept) rc |= run_case(c, wbuf, big, x, d, st, copy);
  else
    for (const Case& c : cases) rc |= run_case(c, wbuf, big, x, d, st, copy);
  return rc;
}
