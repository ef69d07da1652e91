// The production CPU kernels of one ISA, as plain function pointers: each ISA file
// (gemm_avx512.cpp, gemm_avx2.cpp, gemm_portable.cpp) defines one constant table, and
// register.cpp turns the tables into registry entries, guarded by a run-time ISA check.
#pragma once
#include "cpu/block_table.hpp"
#include "gemmkit/gemm.hpp"

namespace gemmkit::cpu {

using RunFn = Status (*)(const GemmDesc&, const GemmArgs&, const Options&);
// splits == 0: the default split count for the problem (split_policy.hpp).
using SplitKFn = Status (*)(const GemmDesc&, const GemmArgs&, const Options&, int splits);

struct TileShape {
  int mr, nr;
};

struct IsaKernels {
  Isa isa;
  TileShape sgemm_tile, dgemm_tile, igemm_tile;
  RunFn sgemm;      // f32 / bf16 / f16 inputs, f32 accumulate and output
  RunFn dgemm;      // f64
  RunFn igemm;      // i8 x i8 -> i32, exact
  RunFn gemv;       // f32 or f64 with M == 1 or N == 1
  SplitKFn splitk;  // f32 or f64
};

const IsaKernels& avx512_kernels();
const IsaKernels& avx2_kernels();
const IsaKernels& portable_kernels();

}  // namespace gemmkit::cpu
