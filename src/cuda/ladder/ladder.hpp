// The CUDA ladder (rungs 0-4 of the seed chapter's section 2) as seen from the host: the
// canonical problem of src/cuda/problem.hpp, shared with the production kernels, and one
// entry point per rung. Each rung lives in its own file, rungN_*.cu, holding only its kernel.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/problem.hpp"
#include "gemmkit/gemm.hpp"

namespace gemmkit::cuda_ladder {

using gpu::InType;
using gpu::OperandView;
using gpu::OutputView;
using gpu::OutType;
using gpu::Params;
using gpu::Problem;
using gpu::make_problem;

// NotSupported unless A, B are both bf16 or both fp16, C and D f32/f16/bf16, f32 accumulation.
inline Status can_implement(const GemmDesc& d) { return gpu::check_16bit_problem(d); }

// One entry per rung: launches on `stream` and reports launch errors (not sticky ones).
Status run_rung0(const Problem& p, cudaStream_t stream);
Status run_rung1(const Problem& p, cudaStream_t stream);
Status run_rung2(const Problem& p, cudaStream_t stream);
Status run_rung3(const Problem& p, cudaStream_t stream);
Status run_rung4(const Problem& p, cudaStream_t stream);

}  // namespace gemmkit::cuda_ladder
