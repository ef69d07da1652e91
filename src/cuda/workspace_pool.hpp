// gemmkit's own device workspace, for CUDA kernels called without one (as cuBLAS keeps its
// own): one buffer per (device, stream), grown on demand and kept for the process, so calls
// on different streams never share scratch memory. It never allocates while the stream is
// being captured into a CUDA graph: pass Options::workspace there (workspace_size says how
// much).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "gemmkit/types.hpp"

namespace gemmkit::gpu {

// A buffer of at least `bytes` for work on `stream` of the current device.
Status pool_workspace(std::size_t bytes, cudaStream_t stream, void** out);

// Counters for work on `stream` of the current device (another buffer than pool_workspace's):
// zero when first handed out; the kernels that use them leave them zero again.
Status pool_counters(std::size_t bytes, cudaStream_t stream, unsigned** out);

}  // namespace gemmkit::gpu
