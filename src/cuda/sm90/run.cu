// The sm90 kernel family's front: architecture check, workspace, staging, launch.
#include <mutex>
#include <vector>

#include "core/status.hpp"
#include "cuda/sm90/sm90.hpp"
#include "cuda/sm90/staging.hpp"
#include "cuda/workspace_pool.hpp"

namespace gemmkit::sm90 {

namespace {

// Compute capability and SM count of each device, read once.
struct DeviceInfo {
  bool sm90 = false;
  int sms = 0;
};

const DeviceInfo* device_info() {
  static std::once_flag once;
  static std::vector<DeviceInfo> devices;
  std::call_once(once, [] {
    if (!cuda_available()) return;
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) return;
    devices.resize(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      int major = 0, minor = 0, sms = 0;
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, i);
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, i);
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, i);
      devices[static_cast<std::size_t>(i)] = {major == 9 && minor == 0, sms};
    }
  });
  int dev = 0;
  if (devices.empty() || cudaGetDevice(&dev) != cudaSuccess ||
      dev >= static_cast<int>(devices.size()))
    return nullptr;
  return &devices[static_cast<std::size_t>(dev)];
}

// The canonical problem of a descriptor whose pointers are not known yet.
gpu::Problem problem_of(const GemmDesc& d, const GemmArgs* args) {
  GemmArgs a = args != nullptr ? *args : GemmArgs{};
  return gpu::make_problem(d, a);
}

}  // namespace

Status can_implement(const GemmDesc& d) {
  const DeviceInfo* dev = device_info();
  if (dev == nullptr || !dev->sm90)
    return GEMMKIT_ERROR(StatusCode::ArchMismatch, Arg::Backend,
                         "the sm90 kernels need an sm_90 device (H100 / H200)");
  if (Status s = gpu::check_16bit_problem(d); !s) return s;
  if (!tma_extents_ok(problem_of(d, nullptr)))
    return GEMMKIT_UNSUPPORTED("the sm90 kernels take M, N, K and batch below 2^31 (TMA)");
  return {};
}

std::size_t workspace_bytes(const GemmDesc& d, const GemmArgs* args) {
  return staging_bytes(problem_of(d, args));
}

Status run(const TileConfig& cfg, const GemmDesc& d, const GemmArgs& args, const Options& opt) {
  const DeviceInfo* dev = device_info();
  if (dev == nullptr || !dev->sm90)
    return GEMMKIT_ERROR(StatusCode::ArchMismatch, Arg::Backend,
                         "the sm90 kernels need an sm_90 device (H100 / H200)");
  const auto stream = static_cast<cudaStream_t>(opt.stream);
  gpu::Problem pr = gpu::make_problem(d, args);
  TmaMaps maps{};
  if (pr.params.read_ab) {
    // The front door checked a workspace the caller gave; none given: gemmkit's pool.
    const std::size_t need = staging_bytes(pr);
    void* ws = opt.workspace;
    if (need > 0 && ws == nullptr)
      if (Status s = gpu::pool_workspace(need, stream, &ws); !s) return s;
    // Each CTA of a cluster loads 1 / cluster of B's rows (K-major boxes).
    if (Status s = stage_operands(pr, 128, cfg.blk_n / cfg.cluster, ws, &maps, stream); !s)
      return s;
  }
  const int key = cfg.blk_n * 4 + cfg.cluster;
  switch (key) {
    case 128 * 4 + 1: return launch_tma_ws<128, 1>(pr, maps, dev->sms, stream);
    case 192 * 4 + 1: return launch_tma_ws<192, 1>(pr, maps, dev->sms, stream);
    case 256 * 4 + 1: return launch_tma_ws<256, 1>(pr, maps, dev->sms, stream);
    case 256 * 4 + 2: return launch_tma_ws<256, 2>(pr, maps, dev->sms, stream);
    default: return GEMMKIT_UNSUPPORTED("no sm90 kernel with this tile width and cluster");
  }
}

}  // namespace gemmkit::sm90
