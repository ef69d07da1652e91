// The sm90 kernel family's front: architecture check, workspace, staging, launch.
#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "cuda/pdl.hpp"
#include "cuda/sm90/sm90.hpp"
#include "cuda/sm90/staging.hpp"
#include "cuda/workspace_pool.hpp"
#include "sched/tile_scheduler.hpp"

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
gpu::Problem problem_of(const TileConfig& cfg, const GemmDesc& d, const GemmArgs* args) {
  GemmArgs a = args != nullptr ? *args : GemmArgs{};
  return gpu::make_problem(d, a, cfg.large_m);
}

// Output tiles of the scheduler (one per cluster: `cluster` CTA tiles of blk_m x blk_n).
std::int64_t cluster_tiles(const TileConfig& cfg, const gpu::Problem& pr) {
  return sched::ceil_div(pr.params.m, cfg.blk_m * cfg.cluster) *
         sched::ceil_div(pr.params.n, cfg.blk_n) * pr.batch;
}

// Split-K pieces per tile for a problem on `sms` SMs (1: data-parallel).
std::int64_t splits_of(const TileConfig& cfg, const gpu::Problem& pr, int sms, int split) {
  if (!pr.params.read_ab || split == 1 || sms <= 0) return 1;
  const std::int64_t tiles = cluster_tiles(cfg, pr);
  if (tiles * cfg.cluster > kMaxSplitTiles) return 1;
  return split_count(tiles, sched::ceil_div(pr.params.k, 64), sms / cfg.cluster, split);
}

constexpr std::size_t kAlign = 256;
constexpr std::size_t align_up(std::size_t b) { return (b + kAlign - 1) / kAlign * kAlign; }
constexpr std::size_t kFlagBytes = kMaxSplitTiles * sizeof(unsigned);

// Workspace layout: [padded operand copies][split-K / stream-K partials][stream-K flags or the
// dynamic tile counter (caller's workspace only: the pool keeps its own, zeroed once)].
struct Layout {
  std::size_t staging = 0, partial = 0, flags = 0;
  std::size_t total() const { return align_up(staging) + align_up(partial) + flags; }
};

Layout layout_of(const TileConfig& cfg, const gpu::Problem& pr, sched::Mode mode,
                 std::int64_t splits, int sms, bool caller_ws, bool dynamic = false) {
  Layout l;
  l.staging = pr.params.read_ab ? staging_bytes(pr) : 0;
  if (dynamic) {
    l.flags = caller_ws ? kFlagBytes : 0;  // the tile counter
  } else if (mode == sched::Mode::StreamK && pr.params.read_ab) {
    l.partial = stream_partial_bytes(sms / cfg.cluster * cfg.cluster, cfg.blk_n);
    l.flags = caller_ws ? kFlagBytes : 0;
  } else if (splits > 1) {
    l.partial =
        split_partial_bytes(cluster_tiles(cfg, pr) * cfg.cluster, splits, cfg.blk_m, cfg.blk_n);
    // Summed by the reduction kernel launched after the GEMM: no counters.
  }
  return l;
}

}  // namespace

int device_sm_count() {
  const DeviceInfo* dev = device_info();
  return dev != nullptr ? dev->sms : 0;
}

int sm_budget(int target, int cluster) {
  const int sms = device_sm_count();
  if (target <= 0 || target >= sms) return sms;
  return std::max(target, cluster);
}

Status can_implement(const GemmDesc& d) {
  const DeviceInfo* dev = device_info();
  if (dev == nullptr || !dev->sm90)
    return GEMMKIT_ERROR(StatusCode::ArchMismatch, Arg::Backend,
                         "the sm90 kernels need an sm_90 device (H100 / H200)");
  if (Status s = gpu::check_16bit_problem(d); !s) return s;
  if (!tma_extents_ok(gpu::make_problem(d, GemmArgs{})))
    return GEMMKIT_UNSUPPORTED(
        "the sm90 kernels take M, N, K, batch and tiles below 2^31 (TMA, the scheduler)");
  return {};
}

std::size_t workspace_bytes(const TileConfig& cfg, sched::Mode mode, const GemmDesc& d,
                            const GemmArgs* args, int split, bool dynamic, int sm_target) {
  dynamic = dynamic_launch(cfg, mode, dynamic);
  const gpu::Problem pr = problem_of(cfg, d, args);
  const int sms = sm_budget(sm_target, cfg.cluster);
  if (mode != sched::Mode::SplitK) split = 1;
  const std::size_t bytes =
      layout_of(cfg, pr, mode, splits_of(cfg, pr, sms, split), sms, true, dynamic).total();
  if (!cfg.large_m || mode != sched::Mode::SplitK || split <= 1) return bytes;
  // run() may take its own count instead (large_m, no count forced): room for either.
  return std::max(bytes,
                  layout_of(cfg, pr, mode, splits_of(cfg, pr, sms, 0), sms, true).total());
}

Status run(const TileConfig& cfg, sched::Mode mode, int split, const GemmDesc& d,
           const GemmArgs& args, const Options& opt) {
  if (mode != sched::Mode::SplitK) split = 1;
  // The planner counts tiles in the caller's orientation; a large_m tile runs the other one
  // (decode: 32 tiles of 128 rows where the planner sees 64 of 64 columns): its split count is
  // the kernel's own unless the caller forced one.
  if (cfg.large_m && mode == sched::Mode::SplitK && opt.split_k <= 0) split = 0;
  const DeviceInfo* dev = device_info();
  if (dev == nullptr || !dev->sm90)
    return GEMMKIT_ERROR(StatusCode::ArchMismatch, Arg::Backend,
                         "the sm90 kernels need an sm_90 device (H100 / H200)");
  const auto stream = static_cast<cudaStream_t>(opt.stream);
  gpu::Problem pr = gpu::make_problem(d, args, cfg.large_m);
  const int sms = sm_budget(opt.sm_count_target, cfg.cluster);
  Launch ln{.sms = sms,
            .mode = mode,
            .splits = splits_of(cfg, pr, sms, split),
            .pdl = gpu::pdl_enabled(),
            .dynamic = dynamic_launch(cfg, mode, opt.dynamic_schedule)};
  // A count the caller forced runs as asked or not at all: the pieces of a launch are at most
  // one per resident CTA and one per K-iteration, and fewer than asked would be measured and
  // reported as the count asked for.
  if (mode == sched::Mode::SplitK && opt.split_k > 1 && split == opt.split_k && pr.params.read_ab &&
      ln.splits < opt.split_k)
    return GEMMKIT_UNSUPPORTED(
        "Options::split_k = " + std::to_string(opt.split_k) + ": this problem's " +
        std::to_string(cluster_tiles(cfg, pr)) + " tiles of " +
        std::to_string(cfg.blk_m * cfg.cluster) + " x " + std::to_string(cfg.blk_n) + " (" +
        std::to_string(sched::ceil_div(pr.params.k, 64)) +
        " K-iterations of 64 each) take at most " + std::to_string(ln.splits) + " pieces each on " +
        std::to_string(sms / cfg.cluster) + " resident " + (cfg.cluster > 1 ? "clusters" : "CTAs") +
        " (one piece per CTA, one K-iteration per piece at least)");
  // The front door checked a workspace the caller gave; none given: gemmkit's pool.
  const bool caller_ws = opt.workspace != nullptr;
  const Layout lay = layout_of(cfg, pr, mode, ln.splits, sms, caller_ws, ln.dynamic);
  auto* ws = static_cast<unsigned char*>(opt.workspace);
  if (caller_ws && opt.workspace_bytes < lay.total())
    return GEMMKIT_ERROR(StatusCode::WorkspaceTooSmall, Arg::Workspace,
                         "sm90: " +
                             (mode == sched::Mode::StreamK
                                  ? std::string("stream-K pieces")
                                  : std::to_string(ln.splits) + " split-K pieces") +
                             " need " + std::to_string(lay.total()) + " bytes of workspace");
  if (lay.total() > 0 && ws == nullptr) {
    void* pooled = nullptr;
    if (Status s = gpu::pool_workspace(lay.total(), stream, &pooled); !s) return s;
    ws = static_cast<unsigned char*>(pooled);
  }
  TmaMaps maps{};
  if (pr.params.read_ab) {
    // Each CTA of a cluster loads 1 / cluster of B's rows (K-major boxes).
    if (Status s = stage_operands(pr, cfg.blk_m, cfg.blk_n / cfg.cluster, ws, &maps, stream); !s)
      return s;
  }
  if (lay.partial > 0) ln.ws.partial = reinterpret_cast<float*>(ws + align_up(lay.staging));
  if (ln.dynamic || (lay.partial > 0 && mode == sched::Mode::StreamK)) {
    if (caller_ws) {  // counters in the caller's workspace: zeroed here, on the stream
      ln.ws.flags = reinterpret_cast<unsigned*>(ws + align_up(lay.staging) + align_up(lay.partial));
      if (cudaMemsetAsync(ln.ws.flags, 0, kFlagBytes, stream) != cudaSuccess)
        return GEMMKIT_ERROR(StatusCode::ExecutionFailed, Arg::Workspace,
                             "sm90: cannot clear the stream-K flags / tile counter");
    } else if (Status s = gpu::pool_counters(kFlagBytes, stream, &ln.ws.flags); !s) {
      return s;
    }
  }
  constexpr auto key = [](int blk_m, int blk_n, int cluster) {
    return (blk_m * 1024 + blk_n) * 4 + cluster;
  };
  switch (key(cfg.blk_m, cfg.blk_n, cfg.cluster)) {
    case key(128, 64, 1):
      return launch_tma_ws<128, 64, 1>(pr, maps, ln, stream);
    case key(128, 128, 1):
      return launch_tma_ws<128, 128, 1>(pr, maps, ln, stream);
    case key(128, 128, 2):
      return launch_tma_ws<128, 128, 2>(pr, maps, ln, stream);
    case key(128, 192, 1):
      return launch_tma_ws<128, 192, 1>(pr, maps, ln, stream);
    case key(128, 256, 1):
      return launch_tma_ws<128, 256, 1>(pr, maps, ln, stream);
    case key(128, 256, 2):
      return launch_tma_ws<128, 256, 2>(pr, maps, ln, stream);
    case key(64, 64, 1):
      return launch_tma_ws<64, 64, 1>(pr, maps, ln, stream);
    case key(64, 128, 1):
      return launch_tma_ws<64, 128, 1>(pr, maps, ln, stream);
    case key(64, 64, 2):
      return launch_tma_ws<64, 64, 2>(pr, maps, ln, stream);
    default:
      return GEMMKIT_UNSUPPORTED("no sm90 kernel with this CTA tile and cluster");
  }
}

}  // namespace gemmkit::sm90
