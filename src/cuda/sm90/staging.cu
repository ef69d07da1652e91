// Operand staging for the sm90 kernels: the TMA's rules, the padded copy, the tensor maps.
#include <cstdint>

#include "core/status.hpp"
#include "cuda/sm90/staging.hpp"
#include "cuda/tma/tensor_map.cuh"
#include "ledger/tma_staging.hpp"

namespace gemmkit::sm90 {

namespace {

using gpu::OperandView;
using std::int64_t;

constexpr int64_t kAlign = ledger::kTmaStrideBytes / 2;  // elements: the TMA's stride granule
constexpr int64_t kPad = ledger::kTmaRowBytes / 2;       // elements: rows of a copy
constexpr std::size_t kWsAlign = 256;

int64_t round_up(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

// An operand as an (outer, k) matrix: which stride is the unit one, the other stride.
struct Arrangement {
  bool kmajor;     // rows of K are contiguous
  int64_t contig;  // extent along the unit stride
  int64_t rows;    // extent along the other
  int64_t stride;  // elements between rows
};

Arrangement arrangement(const OperandView& v, int64_t outer, int64_t k) {
  if (v.s_k == 1 || (v.s_outer != 1 && k > 1)) return {true, k, outer, v.s_outer};
  return {false, outer, k, v.s_k};
}

// The TMA reads the operand as it is: unit stride, strides and base on 16 bytes.
bool tma_ready(const OperandView& v, int64_t outer, int64_t k, int64_t batch) {
  const Arrangement ar = arrangement(v, outer, k);
  const int64_t unit = ar.kmajor ? v.s_k : v.s_outer;
  return (unit == 1 || ar.contig == 1) && ar.stride > 0 && ar.stride % kAlign == 0 &&
         (batch <= 1 || v.batch_stride % kAlign == 0) &&
         reinterpret_cast<std::uintptr_t>(v.ptr) % 16 == 0;
}

// Batch entries a copy must hold: one for a broadcast operand.
int64_t copies(const OperandView& v, int64_t batch) { return v.batch_stride == 0 ? 1 : batch; }

// The operand is copied first: the TMA cannot read it, or its row stride is off 128 bytes and
// the copy costs less than the slower reads (ledger/tma_staging.hpp). Strides only, not the
// base: workspace_size without the call's pointers stays exact.
bool needs_copy(const OperandView& v, int64_t outer, const gpu::Problem& pr) {
  const int64_t k = pr.params.k, batch = pr.batch;
  if (!tma_ready(v, outer, k, batch)) return true;
  const Arrangement ar = arrangement(v, outer, k);
  const bool rows_off =
      (ar.rows > 1 && ar.stride % kPad != 0) || (batch > 1 && v.batch_stride % kPad != 0);
  const double flops = 2.0 * static_cast<double>(pr.params.m) * static_cast<double>(pr.params.n) *
                       static_cast<double>(k) * static_cast<double>(batch);
  const double bytes = 2.0 * static_cast<double>(ar.contig) * static_cast<double>(ar.rows) *
                       static_cast<double>(copies(v, batch));
  return rows_off && ledger::stage_misaligned(flops, bytes);
}

std::size_t padded_bytes(const OperandView& v, int64_t outer, int64_t k, int64_t batch) {
  const Arrangement ar = arrangement(v, outer, k);
  const auto bytes = static_cast<std::size_t>(round_up(ar.contig, kPad) * ar.rows *
                                              copies(v, batch) * 2);
  return (bytes + kWsAlign - 1) / kWsAlign * kWsAlign;
}

// Elements p[0..7] (p on 2 bytes) from the two aligned 16-byte chunks that hold them: two
// vector loads and a shift instead of eight 2-byte loads. The caller makes sure both chunks lie
// inside the operand.
__device__ __forceinline__ uint4 load8_shifted(const std::uint16_t* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const auto* q = reinterpret_cast<const uint4*>(a & ~std::uintptr_t{15});
  const uint4 lo = q[0], hi = q[1];
  const std::uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  const int e = static_cast<int>(a & 15) / 2, s = e / 2;  // element, 32-bit word offsets
  std::uint32_t o[5];
#pragma unroll
  for (int i = 0; i < 5; ++i)  // constant indices: selects, not a local-memory array
    o[i] = s == 0 ? w[i] : s == 1 ? w[i + 1] : s == 2 ? w[i + 2] : w[i + 3];
  if ((e & 1) == 0) return make_uint4(o[0], o[1], o[2], o[3]);
  return make_uint4(__funnelshift_r(o[0], o[1], 16), __funnelshift_r(o[1], o[2], 16),
                    __funnelshift_r(o[2], o[3], 16), __funnelshift_r(o[3], o[4], 16));
}

// dst(row, j) = src(row, j) for j < contig, 0 up to the padded row length; 16 bytes a thread.
__global__ void pad_copy_kernel(const std::uint16_t* __restrict__ src, std::uint16_t* dst,
                                int64_t contig, int64_t rows, int64_t s_contig, int64_t s_row,
                                int64_t s_batch, int64_t batches, int64_t ld) {
  const int64_t chunks_per_row = ld / 8, chunks = chunks_per_row * rows * batches;
  for (int64_t c = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; c < chunks;
       c += int64_t{gridDim.x} * blockDim.x) {
    const int64_t j0 = (c % chunks_per_row) * 8, r = (c / chunks_per_row) % rows;
    const int64_t l = c / (chunks_per_row * rows);
    const std::uint16_t* row = src + l * s_batch + r * s_row;
    const std::uint16_t* s = row + j0 * s_contig;
    // Both aligned chunks inside this row's own elements: the shifted vector load.
    const auto first = reinterpret_cast<std::uintptr_t>(s) & ~std::uintptr_t{15};
    uint4 v;
    if (s_contig == 1 && j0 + 8 <= contig && first >= reinterpret_cast<std::uintptr_t>(row) &&
        first + 32 <= reinterpret_cast<std::uintptr_t>(row + contig)) {
      v = load8_shifted(s);
    } else {
      std::uint16_t e[8];
#pragma unroll
      for (int i = 0; i < 8; ++i) e[i] = j0 + i < contig ? s[i * s_contig] : 0;
      v.x = e[0] | (std::uint32_t{e[1]} << 16);
      v.y = e[2] | (std::uint32_t{e[3]} << 16);
      v.z = e[4] | (std::uint32_t{e[5]} << 16);
      v.w = e[6] | (std::uint32_t{e[7]} << 16);
    }
    *reinterpret_cast<uint4*>(dst + (l * rows + r) * ld + j0) = v;
  }
}

// Copies v into ws as rows padded to 64 elements (128 bytes) and returns the view of the copy.
Status pad_copy(OperandView& v, int64_t outer, int64_t k, int64_t batch, void* ws,
                cudaStream_t stream) {
  const Arrangement ar = arrangement(v, outer, k);
  const int64_t ld = round_up(ar.contig, kPad), n = copies(v, batch);
  const int64_t s_contig = ar.kmajor ? v.s_k : v.s_outer;
  const int64_t chunks = ld / 8 * ar.rows * n;
  const int threads = 256;
  const auto blocks = static_cast<unsigned>(chunks / threads + 1 < 132 * 16 ? chunks / threads + 1
                                                                            : 132 * 16);
  pad_copy_kernel<<<blocks, threads, 0, stream>>>(static_cast<const std::uint16_t*>(v.ptr),
                                                  static_cast<std::uint16_t*>(ws), ar.contig,
                                                  ar.rows, s_contig, ar.stride, v.batch_stride, n,
                                                  ld);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess)
    return GEMMKIT_ERROR(StatusCode::ExecutionFailed, Arg::None,
                         std::string("sm90 operand copy: ") + cudaGetErrorString(e));
  v.ptr = ws;
  v.s_outer = ar.kmajor ? ld : 1;
  v.s_k = ar.kmajor ? 1 : ld;
  v.batch_stride = n == 1 ? 0 : ld * ar.rows;
  v.vec16 = true;
  return {};
}

// The map of one operand: K-major boxes of (64 K, box_rows) or MN-major boxes of (64, 64).
bool encode(CUtensorMap* map, bool* batched, const OperandView& v, int64_t outer, int64_t k,
            int64_t batch, int box_rows) {
  const Arrangement ar = arrangement(v, outer, k);
  *batched = batch > 1 && v.batch_stride != 0;
  const int64_t nb = *batched ? batch : 1;
  return ar.kmajor ? tma::encode_16bit(map, v.ptr, k, outer, ar.stride, nb, v.batch_stride, 64,
                                       static_cast<std::uint32_t>(box_rows))
                   : tma::encode_16bit(map, v.ptr, outer, k, ar.stride, nb, v.batch_stride, 64,
                                       64);
}

}  // namespace

bool tma_extents_ok(const gpu::Problem& pr) {
  constexpr int64_t kMax = int64_t{1} << 31;
  const gpu::Params& p = pr.params;
  if (!(p.m < kMax && p.n < kMax && p.k < kMax && pr.batch < kMax)) return false;
  // The device scheduler's counts are 32-bit: fewer than 2^31 tiles of the smallest tile.
  const int64_t tiles_m = (p.m + 63) / 64, tiles_n = (p.n + 63) / 64;
  return tiles_m * tiles_n < kMax / (pr.batch > 0 ? pr.batch : 1);
}

std::size_t staging_bytes(const gpu::Problem& pr) {
  const gpu::Params& p = pr.params;
  if (!p.read_ab) return 0;
  std::size_t bytes = 0;
  const auto need = [&](OperandView v, int64_t outer) {
    if (v.ptr == nullptr) v.ptr = reinterpret_cast<const void*>(std::uintptr_t{256});
    if (needs_copy(v, outer, pr)) bytes += padded_bytes(v, outer, p.k, pr.batch);
  };
  need(p.a, p.m);
  need(p.b, p.n);
  return bytes;
}

Status stage_operands(gpu::Problem& pr, int blk_m, int blk_n, void* ws, TmaMaps* maps,
                      cudaStream_t stream) {
  gpu::Params& p = pr.params;
  auto* next = static_cast<unsigned char*>(ws);
  const auto stage = [&](OperandView& v, int64_t outer) -> Status {
    if (!needs_copy(v, outer, pr)) return {};
    const std::size_t bytes = padded_bytes(v, outer, p.k, pr.batch);
    if (Status s = pad_copy(v, outer, p.k, pr.batch, next, stream); !s) return s;
    next += bytes;
    return {};
  };
  if (Status s = stage(p.a, p.m); !s) return s;
  if (Status s = stage(p.b, p.n); !s) return s;
  pr.a_kmajor = arrangement(p.a, p.m, p.k).kmajor;
  pr.b_kmajor = arrangement(p.b, p.n, p.k).kmajor;
  if (!encode(&maps->a, &maps->a_batched, p.a, p.m, p.k, pr.batch, blk_m) ||
      !encode(&maps->b, &maps->b_batched, p.b, p.n, p.k, pr.batch, blk_n))
    return GEMMKIT_ERROR(StatusCode::ExecutionFailed, Arg::None,
                         "sm90: the driver refused a tensor map (cuTensorMapEncodeTiled)");
  return {};
}

}  // namespace gemmkit::sm90
