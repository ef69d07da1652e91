// Registers every CUDA kernel (ladder rungs, production kernels) in the kernel registry.
#include "dispatch/registry.hpp"

namespace gemmkit::dispatch {

void register_cuda_kernels(Registry&) {}

}  // namespace gemmkit::dispatch
