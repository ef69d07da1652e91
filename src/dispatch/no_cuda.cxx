// Built instead of src/cuda/ when gemmkit is configured without CUDA.
#include "cuda/gemv/gemv.hpp"
#include "dispatch/registry.hpp"

namespace gemmkit {
bool cuda_available() noexcept { return false; }
namespace dispatch {
void register_cuda_kernels(Registry&) {}
bool is_device_pointer(const void*) noexcept { return false; }
bool cuda_device_identity(std::string*, int*) noexcept { return false; }
}  // namespace dispatch
namespace gemv {
DecodeRowsCut decode_rows_cut(const GemmDesc&, int) { return {}; }  // no device: no cut
}  // namespace gemv
}  // namespace gemmkit
