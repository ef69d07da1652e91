// Is there a usable CUDA device? A binary built with the CUDA backend also runs on machines
// without a GPU (or with too old a driver): the first runtime call then fails and we say "no".
#include <cuda_runtime.h>

#include "dispatch/registry.hpp"
#include "gemmkit/gemm.hpp"

namespace gemmkit {

bool cuda_available() noexcept {
  static const bool available = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();  // clear the sticky "insufficient driver" / "no device" error
      return false;
    }
    return n > 0;
  }();
  return available;
}

namespace dispatch {

bool is_device_pointer(const void* p) noexcept {
  if (p == nullptr || !cuda_available()) return false;
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged;
}

bool cuda_device_identity(std::string* name, int* sms) noexcept {
  if (!cuda_available()) return false;
  int dev = 0;
  cudaDeviceProp p{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  *name = p.name;
  *sms = p.multiProcessorCount;
  return true;
}

}  // namespace dispatch
}  // namespace gemmkit
