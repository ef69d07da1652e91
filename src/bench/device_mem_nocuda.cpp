#ifndef GEMMKIT_HAVE_CUDA
#include "bench/device_mem.hpp"

namespace gemmkit::bench {
namespace {
bool fail(std::string* err) {
  if (err) *err = "gemmkit was built without CUDA";
  return false;
}
}  // namespace
bool device_alloc(void** p, std::size_t, std::string* err) {
  *p = nullptr;
  return fail(err);
}
void device_free(void*) {}
bool copy_to_device(void*, const void*, std::size_t, std::string* err) { return fail(err); }
bool copy_to_host(void*, const void*, std::size_t, std::string* err) { return fail(err); }
bool copy_on_device(void*, const void*, std::size_t, std::string* err) { return fail(err); }
bool device_synchronize(std::string* err) { return fail(err); }
bool device_mem_info(std::size_t*, std::size_t*) { return false; }
}  // namespace gemmkit::bench
#endif
