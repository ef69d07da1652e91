#ifndef GEMMKIT_HAVE_CUDA
#include "bench/gpu_runtime.hpp"

namespace gemmkit::bench::gpu {

namespace {
Status no_cuda() {
  return Status{StatusCode::NotSupported, Arg::Backend, "gemmkit was built without CUDA"};
}
}  // namespace

DeviceInfo query_device() {
  DeviceInfo d;
  d.error = "gemmkit was built without CUDA";
  return d;
}
Stream::Stream() : error_("gemmkit was built without CUDA") {}
Stream::~Stream() = default;
Status Stream::time_region(const Enqueue&, double*) { return no_cuda(); }
Status Stream::synchronize() { return no_cuda(); }
Graph::~Graph() = default;
Status Graph::capture(Stream&, const Enqueue&) { return no_cuda(); }
Status Graph::replay(Stream&, double*) { return no_cuda(); }
Status flush_l2(Stream&, void*, std::size_t) { return no_cuda(); }
Status copy_bandwidth(std::size_t, int, double*) { return no_cuda(); }

}  // namespace gemmkit::bench::gpu
#endif
