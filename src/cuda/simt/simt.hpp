// The f32 and f64 kernels of the CUDA backend (cuBLAS SGEMM / DGEMM semantics) as seen from
// the host: which problems they take, and one entry point each. Every layout, transpose,
// leading dimension, alignment and batch of the canonical problem (src/cuda/problem.hpp).
//   sgemm_ffma.cu  f32: FFMA on the CUDA cores, exact fp32 (never TF32)
//   dgemm_dmma.cu  f64: DMMA, the f64 tensor-core mma.sync m8n8k4
//   stage.cuh, epilogue.cuh, launch.cuh: what the two share
#pragma once
#include <cuda_runtime.h>

#include "cuda/problem.hpp"
#include "gemmkit/gemm.hpp"

namespace gemmkit::simt {

// NotSupported unless A, B, C and D are all `t` (f32 or f64) and the accumulator is `t`.
Status can_implement(const GemmDesc& d, DType t);

// Launch on `stream`; launch errors come back as ExecutionFailed.
Status run_sgemm_ffma(const gpu::Problem& pr, float alpha, float beta, cudaStream_t stream);
Status run_dgemm_dmma(const gpu::Problem& pr, double alpha, double beta, cudaStream_t stream);

}  // namespace gemmkit::simt
