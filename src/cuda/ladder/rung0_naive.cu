// Rung 0, naive tiled (the seed's RUNG_0): one 16x16 block of D per CTA, one thread per output
// element; each thread reads its row of A and its column of B straight from global memory and
// accumulates on the CUDA cores in fp32. Fixes nothing yet: it is the correctness baseline.
// Leaves: O(MNK) global reads (only L1/L2 reuse), no tensor cores.
#include "cuda/ladder/harness.cuh"

namespace gemmkit::cuda_ladder {
namespace {

// ---- preconditions: none. Any strides: both operands are read element by element.
constexpr int kTileM = 16, kTileN = 16;  // one thread per output element

// ---- SharedStorage: none.

template <class T, bool, bool>
__global__ void __launch_bounds__(kTileM* kTileN) rung0_naive_kernel(const Params p) {
  const CtaOperands op = cta_operands(p);
  const TileCoord t = linear_tile(blockIdx.x, ceil_div(p.n, kTileN));
  const int64_t row = t.m * kTileM + threadIdx.x / kTileN;
  const int64_t col = t.n * kTileN + threadIdx.x % kTileN;
  if (row >= p.m || col >= p.n) return;

  // ---- main loop: sum over K of A(row, q) * B(q, col)
  float acc = 0.f;
  if (p.read_ab) {
    const uint16_t* a = op.a + row * p.a.s_outer;
    const uint16_t* b = op.b + col * p.b.s_outer;
    for (int64_t q = 0; q < p.k; ++q)
      acc += input_to_float<T>(a[q * p.a.s_k]) * input_to_float<T>(b[q * p.b.s_k]);
  }

  // ---- epilogue
  store_element(p, op.batch, row, col, acc);
}

struct Rung0 {
  static constexpr int BLK_M = kTileM, BLK_N = kTileN;
  static constexpr int kThreads = BLK_M * BLK_N, kSmemBytes = 0;
  static constexpr bool kUsesArrangement = false;
  template <class T, bool AK, bool BK>
  static KernelFn kernel() {
    return rung0_naive_kernel<T, AK, BK>;
  }
};

}  // namespace

Status run_rung0(const Problem& pr, cudaStream_t stream) { return launch<Rung0>(pr, stream); }

}  // namespace gemmkit::cuda_ladder
