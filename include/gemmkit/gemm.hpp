// gemmkit C++ API: D = alpha * op(A) * op(B) + beta * C
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "gemmkit/types.hpp"

namespace gemmkit {

// One operand as stored in memory.
//   ld: leading dimension in elements (distance between columns for ColMajor,
//       between rows for RowMajor); 0 means "packed" (rows or cols of the stored matrix).
//   batch_stride: elements between consecutive batch entries (0 broadcasts A, B or C).
struct MatrixDesc {
  DType dtype = DType::F32;
  Layout layout = Layout::ColMajor;
  std::int64_t ld = 0;
  std::int64_t batch_stride = 0;
};

// The fused epilogue: D = act(alpha * op(A) op(B) + bias + beta * C), computed once per element
// of D from the accumulator, before D's one rounding. The defaults (no bias, no activation) are
// exactly the BLAS semantics of gemm() (BiasMode::None never reads GemmArgs::bias).
enum class BiasMode : std::uint8_t {
  None,
  Row,     // bias[i] added to row i of D: M values (a per-output-channel bias of x^T W^T)
  Column,  // bias[j] added to column j of D: N values (the bias of x W with x row-major)
};
enum class Activation : std::uint8_t {
  None,
  Relu,      // max(x, 0); NaN stays NaN, -0 stays -0
  GeluErf,   // x * (1 + erf(x / sqrt 2)) / 2
  GeluTanh,  // x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))) / 2
  Silu,      // x / (1 + exp(-x))
};  // every form maps +Inf to +Inf and -Inf to 0 (their limits), NaN to NaN
// The output's scaling (fp8 outputs, as Transformer Engine and cuBLASLt's D scale / amax do it):
// with v = act(...) the epilogue's value above,
//   scale_d  D = round(v * s_d), s_d = *GemmArgs::scale_d (one f32; a multiply, as Transformer
//            Engine's fp8 scale: s_d is the inverse of the dequantization scale of D);
//   amax_d   *GemmArgs::amax_d = max |v| over every element of D and every batch entry (v before
//            s_d and before D's rounding, as an f32; NaN when any v is NaN); written once per
//            call, also when alpha == 0, never on the quick return of M == 0 or N == 0.
// An fp8 D (e4m3, e5m2) is always written saturating: beyond +-fmax, and +-Inf, give +-fmax (448,
// 57344), NaN stays NaN (convert.hpp's saturating to_e4m3 / to_e5m2).
struct EpilogueDesc {
  BiasMode bias = BiasMode::None;
  DType bias_dtype = DType::F32;  // f32, bf16 or f16 (f64 for an f64 accumulator); contiguous
  Activation act = Activation::None;
  bool scale_d = false;  // D = round(v * *GemmArgs::scale_d)
  bool amax_d = false;   // *GemmArgs::amax_d = max |v|
};  // the same bias for every batch entry

// Scales of A and B: D = act(alpha * (sum_p op(A)_ip op(B)_pj) * sa_i * sb_j + bias
// + beta * C), with sa_i = scale_a[0] (Tensor) or scale_a[i] (Row: M values, one per row of
// op(A)), and sb_j = scale_b[0] (Tensor) or scale_b[j] (Column: N values, one per column of
// op(B)); fp32, contiguous, the same for every batch entry. Like A and B they are read only when
// alpha != 0 and K > 0. Row is for A only, Column for B only.
//
// Block scales (DeepGEMM's fp8 layout) vary along K, so they scale each element before the
// product: D = act(alpha * sum_p (op(A)_ip sa(i, p)) (op(B)_pj sb(p, j)) + bias + beta * C).
//   Block1x128    one scale per 1 x 128 block: sa(i, p) = S_A(i, p / 128), S_A is M x K/128;
//                 for B per column of op(B): sb(p, j) = S_B(p / 128, j), S_B is K/128 x N.
//   Block128x128  one scale per 128 x 128 block: S_A(i / 128, p / 128) of a ceil(M/128) x K/128
//                 matrix; S_B(p / 128, j / 128) of a K/128 x ceil(N/128) matrix.
// K must be a multiple of 128 (else InvalidValue naming scale_a / scale_b: never a silent
// truncation). S is fp32, stored with ScaleDesc::layout and ::ld (0: packed), the same for every
// batch entry; scale_extent_a / scale_extent_b give its rows and columns. DeepGEMM's own layouts
// are the column-major defaults: A's (M, K/128) scales M-major, B's (N/128, K/128) row-major,
// which is this S_B column-major with ld = K/128.
//
// Weight-only quantization (w8a16, w4a16): A floating (f32, bf16, f16), B integer (i8, or i4
// two a byte, element 2i of the stored matrix in the low nibble of byte i, each nibble two's
// complement: 0x8 = -8, 0xF = -1; gemmkit/convert.hpp's int4_get), f32 accumulation, a
// floating D, and for B
//   Group         one scale per `group` (32, 64 or 128) consecutive K of each column of op(B):
//                 op(B)_pj = (q_pj - z(p / group, j)) * s(p / group, j), S (and Z) K/group x N,
//                 with ScaleDesc::layout and ::ld, scales of ScaleDesc::dtype (f32, f16, bf16);
//                 the zero points Z (GemmArgs::zero_b, when ScaleDesc::zero_points) are stored
//                 exactly as S (the same dtype, layout and ld; fractional zeros allowed).
//                 K must be a multiple of the group (else InvalidValue naming scale_b).
// An integer B without Group is its integer values (scaled by any tensor / column scale).
// gemmkit/quantize.hpp's quantize_weights builds q, S and Z from f32 / bf16 / f16 weights.
//
// Microscaling (OCP MX v1.0), MXFP8 and MXFP4: fp8 (e4m3 / e5m2) or fp4 (e2m1) A or B with
//   Mx            one e8m0 scale (2^(code - 127); 0xFF NaN) per 32 consecutive K of each row of
//                 op(A) (S_A M x K/32) or column of op(B) (S_B K/32 x N); ScaleDesc::dtype E8M0,
//                 layout and ld as above; K a multiple of 32 (else InvalidValue);
//                 quantize_fp8 / quantize_fp4 (gemmkit/quantize.hpp) build both from f32.
enum class ScaleMode : std::uint8_t {
  None,
  Tensor,
  Row,
  Column,
  Block1x128,
  Block128x128,
  Group,
  Mx
};
inline constexpr std::int64_t kMxBlock = 32;  // K values per MX scale
struct ScaleDesc {
  ScaleMode mode = ScaleMode::None;
  Layout layout = Layout::ColMajor;  // of the scale matrix S (block and group modes)
  std::int64_t ld = 0;               // of S; 0: packed
  std::int64_t group = 0;            // Group: 32, 64 or 128 K values per scale
  DType dtype = DType::F32;          // of S (and Z): f32; f16 / bf16 for Group; E8M0 for Mx
  bool zero_points = false;          // Group: GemmArgs::zero_b holds Z
};
inline constexpr std::int64_t kScaleBlock = 128;  // the block edge of the Block modes

// The problem. op(A) is M x K, op(B) is K x N, C and D are M x N.
// A is stored M x K when trans_a == NoTrans and K x M otherwise (likewise B).
struct GemmDesc {
  std::int64_t m = 0, n = 0, k = 0;
  Op trans_a = Op::NoTrans;
  Op trans_b = Op::NoTrans;
  MatrixDesc a{}, b{}, c{}, d{};
  std::int64_t batch = 1;
  DType compute = DType::F32;  // accumulate type (F64 for f64 problems, I32 for int8)
  EpilogueDesc epilogue{};     // floating outputs only
  ScaleDesc scale_a{}, scale_b{};  // floating outputs only
};

// Pointers and scalars of one call. D may alias C (same pointer, same layout and ld).
struct GemmArgs {
  const void* a = nullptr;
  const void* b = nullptr;
  const void* c = nullptr;
  void* d = nullptr;
  double alpha = 1.0;
  double beta = 0.0;
  const void* bias = nullptr;  // EpilogueDesc::bias != None: M or N values of bias_dtype
  const void* scale_a = nullptr;  // ScaleDesc::mode != None: 1 or M values, or S_A (fp32)
  const void* scale_b = nullptr;  // 1 or N values, or S_B (of ScaleDesc::dtype)
  const void* zero_b = nullptr;   // ScaleDesc::zero_points: Z of the Group mode
  const float* scale_d = nullptr;  // EpilogueDesc::scale_d: s_d, one value, read on every call
  float* amax_d = nullptr;         // EpilogueDesc::amax_d: one value, written
};

// How a production kernel deals its work (the tile scheduler's mode): Auto lets the planner
// rank every mode a kernel has; the others keep only that mode (a kernel without it refuses).
// DataParallel: whole output tiles; SplitK: K cut into Options::split_k pieces (0: the
// planner's count); StreamK: the last tiles' K-iterations spread evenly over the SMs.
enum class Schedule : std::uint8_t { Auto, DataParallel, SplitK, StreamK };

// Options::batch_invariant plans every problem as if it had this many rows: a large batch, so
// that every M runs the kernel and tile a prefill-sized batch would get (many output tiles per
// SM or core, where the ranking is about throughput, not about filling the machine).
inline constexpr std::int64_t kBatchInvariantM = 4096;

struct Options {
  Backend backend = Backend::Auto;
  void* stream = nullptr;          // cudaStream_t for the CUDA backend
  void* workspace = nullptr;       // device memory for CUDA, host memory for CPU
  std::size_t workspace_bytes = 0;
  const char* kernel = nullptr;    // force a registered kernel by name (nullptr: planner)
  bool allow_fallback = true;      // misaligned operands may take a slower path
  int threads = 0;                 // CPU threads; 0 = all cores
  // Split-K pieces; 0 = the planner's choice. A forced count runs as asked or is refused
  // (NotSupported): the sm90 kernels take at most one piece per resident CTA and per K-iteration.
  int split_k = 0;
  Schedule schedule = Schedule::Auto;
  // Each row of D gets the same bits whatever M is: row i of an M-row problem equals row i of
  // any larger problem whose first M rows of op(A) (and of C, of a row bias, of row scales) hold
  // the same values, all else equal (N, K, B, dtypes, layouts, alpha, beta, epilogue, backend,
  // device). The plan is chosen with M replaced by kBatchInvariantM, among the data-parallel modes
  // of the kernels whose summation order per output element does not depend on M
  // (KernelInfo::m_invariant): no split-K or stream-K, no GEMV / decode kernel, no kernel that
  // swaps A and B when M is small; the tuning cache is not consulted. Options::split_k > 1, a
  // split-K or stream-K Options::schedule, or a kernel forced by name that is not M-invariant is
  // refused (InvalidValue / NotSupported naming the option). Costs speed where M is small.
  bool batch_invariant = false;
  // Persistent kernels take their data-parallel output tiles from a counter in device memory
  // instead of a fixed deal, so that a GEMM sharing the GPU with another kernel (one holding
  // some SMs, as a communication kernel does) is not held up by the CTAs that start late. Each
  // tile is still computed whole, in the same order: the bits do not change. Read by the sm90
  // kernels (not in clusters) in their data-parallel mode; the counter lives in gemmkit's pool,
  // or in the caller's workspace (workspace_size counts it, cleared on the stream each call).
  bool dynamic_schedule = false;
  // CUDA: the persistent kernels (the sm90 tiles' grid, the decode row blocks) occupy at most
  // this many SMs, leaving the others to a kernel running beside the GEMM (a collective that
  // overlaps it, another stream's work); the planner ranks with that many SMs and ignores the
  // tuning cache (its winners were timed on the whole device). 0: every SM. Like cuBLASLt's
  // CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET. Kernels whose grid is one CTA per output block (GEMV,
  // SIMT, the ladder) launch as without it; the CPU ignores it. < 0: InvalidValue.
  int sm_count_target = 0;
};

// Shape of the stored operand (rows, cols) for a descriptor.
struct Extent {
  std::int64_t rows, cols;
};
Extent stored_extent_a(const GemmDesc& d) noexcept;
Extent stored_extent_b(const GemmDesc& d) noexcept;
Extent stored_extent_cd(const GemmDesc& d) noexcept;
// Rows and columns of the scale matrix S of A and of B (ScaleDesc): {1, 1} for Tensor, {M, 1}
// for Row, {1, N} for Column, the block grids above, {K / group, N} for Group; {0, 0} for None.
Extent scale_extent_a(const GemmDesc& d) noexcept;
Extent scale_extent_b(const GemmDesc& d) noexcept;

// Replace ld == 0 by the packed leading dimension of each operand (and of block scales).
GemmDesc with_default_lds(GemmDesc d) noexcept;

// Validate the problem (sizes, leading dimensions, dtypes, batch) and ask whether a kernel
// of the chosen backend implements it. Launches nothing, touches no memory.
Status can_implement(const GemmDesc& desc, const Options& opt = {});

// Bytes of workspace the planned kernel needs (0 for most). Without the call's pointers the
// operands' base pointers are taken to be 16-byte aligned; the second form is exact. A CUDA
// call given no workspace takes it from gemmkit's own device pool (one buffer per device and
// stream, grown outside CUDA-graph capture; under capture pass Options::workspace).
std::size_t workspace_size(const GemmDesc& desc, const Options& opt = {});
std::size_t workspace_size(const GemmDesc& desc, const GemmArgs& args, const Options& opt = {});

// Run the GEMM. Argument errors return InvalidValue naming the argument and change nothing.
Status gemm(const GemmDesc& desc, const GemmArgs& args, const Options& opt = {});

// True when a CUDA device is usable in this process.
bool cuda_available() noexcept;

}  // namespace gemmkit
