#include <cuda_runtime.h>

#include "bench/device_mem.hpp"

namespace gemmkit::bench {
namespace {
bool check(cudaError_t e, std::string* err) {
  if (e == cudaSuccess) return true;
  if (err) *err = cudaGetErrorString(e);
  cudaGetLastError();
  return false;
}
}  // namespace
bool device_alloc(void** p, std::size_t bytes, std::string* err) {
  return check(cudaMalloc(p, bytes == 0 ? 1 : bytes), err);
}
void device_free(void* p) { cudaFree(p); }
bool copy_to_device(void* dst, const void* src, std::size_t bytes, std::string* err) {
  return check(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), err);
}
bool copy_to_host(void* dst, const void* src, std::size_t bytes, std::string* err) {
  return check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), err);
}
bool copy_on_device(void* dst, const void* src, std::size_t bytes, std::string* err) {
  return check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice), err);
}
bool device_synchronize(std::string* err) { return check(cudaDeviceSynchronize(), err); }
bool device_mem_info(std::size_t* free_bytes, std::size_t* total_bytes) {
  return cudaMemGetInfo(free_bytes, total_bytes) == cudaSuccess;
}
}  // namespace gemmkit::bench
