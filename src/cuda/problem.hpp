// The canonical problem every CUDA kernel of gemmkit runs (ladder rungs and sm90 kernels):
// built once from a validated GemmDesc, passed to kernels by value. Host and device code.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "gemmkit/gemm.hpp"

namespace gemmkit::gpu {

// Element type of C and D (the 16-bit kernels write F32, F16 or BF16; the SIMT / DMMA kernels
// of src/cuda/simt write their input type, F32 or F64).
enum class OutType : int { F32, F16, BF16, F64 };

// An input operand of the canonical problem as an (outer, k) matrix: outer is M for A and N
// for B. Element (o, p) of batch l lives at ptr + l * batch_stride + o * s_outer + p * s_k.
struct OperandView {
  const void* ptr = nullptr;
  std::int64_t s_outer = 0, s_k = 0, batch_stride = 0;
  bool vec16 = false;  // 16-byte cp.async is legal on fully in-bounds 16-byte chunks
};

// C or D as an (M, N) matrix of the canonical problem.
struct OutputView {
  void* ptr = nullptr;  // const for C
  std::int64_t s_row = 0, s_col = 0, batch_stride = 0;
  OutType type = OutType::F32;
};

// Everything a kernel reads, passed by value. The canonical problem is the caller's,
// or its transpose (D^T = op(B)^T op(A)^T) when D is column-major, so that D's rows are
// contiguous and the epilogue can store element pairs.
struct Params {
  std::int64_t m = 0, n = 0, k = 0;
  OperandView a, b;  // a: (m, k); b: (n, k)
  OutputView c, d;
  float alpha = 1.f, beta = 0.f;
  bool read_ab = true;           // alpha != 0 and k > 0: otherwise A and B are never touched
  bool read_c = false;           // beta != 0: otherwise C is never touched
  std::int64_t batch_begin = 0;  // batch of blockIdx.y == 0 in this launch
};

enum class InType { BF16, F16, F32, F64 };

struct Problem {
  Params params;
  std::int64_t batch = 1;
  InType in = InType::BF16;
  bool a_kmajor = true;  // s_k == 1 for A: tiles of A are stored (BLK_M, BLK_K) in smem
  bool b_kmajor = true;  // s_k == 1 for B: tiles of B are stored (BLK_N, BLK_K) in smem
};

// NotSupported unless A, B are both bf16 or both fp16, C and D are f32/f16/bf16 and the
// accumulator is f32. Every layout, transpose, leading dimension and alignment is accepted.
Status check_16bit_problem(const GemmDesc& d);

// Builds the canonical problem from a validated descriptor with defaulted lds. `large_m`:
// the orientation (the problem or its transpose) whose M is the larger of M and N, instead of
// the one whose D has contiguous rows.
Problem make_problem(const GemmDesc& d, const GemmArgs& args, bool large_m = false);

}  // namespace gemmkit::gpu
