// The sm90 production kernels as the registry sees them: which problems they take, the
// workspace they need, and one entry per CTA tile configuration.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/problem.hpp"
#include "cuda/sm90/split_k.hpp"
#include "cuda/sm90/tma_maps.hpp"
#include "gemmkit/gemm.hpp"
#include "sched/tile_scheduler.hpp"

namespace gemmkit::sm90 {

// A configuration of the TMA + wgmma warp-specialized kernel: CTA tile blk_m x blk_n x 64
// (blk_m 128: the two consumer warpgroups take 64 rows each; 64: they take alternate stages
// whole), clusters of `cluster` CTAs along M multicasting their shared B tile. `large_m`: the
// kernel runs the orientation of the problem (it or its transpose) whose M is the larger of M
// and N, so that a small side (decode: M = 1..64 tokens) becomes the tile's N.
struct TileConfig {
  int blk_n = 256;
  int cluster = 1;
  bool large_m = false;
  int blk_m = 128;
};

// Ring stages of a tile: as many (blk_m + blk_n) x 64 x 2-byte stages as fit in 227 KiB, at
// most 8 for 128-row tiles (128 x 64 weight boxes, 128 KiB in flight, cover the memory
// latency); the 64-row tiles, whose pieces stream long K ranges, keep 192 KiB in flight (64 x
// 64: 12 stages; 64 x 128: 8, beside the 32 KiB its consumers' handoff takes).
constexpr int stages_for(int blk_m, int blk_n) {
  if (blk_m == 64) return blk_n == 64 ? 12 : 8;
  return blk_n == 256 ? 4 : blk_n == 192 ? 5 : blk_n == 128 ? 6 : 8;
}

// One launch: the CTA budget (the device's SMs, or Options::sm_count_target), the scheduler
// mode, the split-K pieces per tile (1: none) and the workspace the pieces meet in (split-K
// without counters: summed by the reduction kernel launched after the GEMM), programmatic
// dependent launch or not.
struct Launch {
  int sms = 0;
  sched::Mode mode = sched::Mode::DataParallel;
  std::int64_t splits = 1;
  SplitWorkspace ws{};
  bool pdl = true;
  bool dynamic = false;  // data-parallel tiles from a counter (ws.flags[0..1]), CTAs unclustered
};

// SM count of the current device (read once per device), 0 without one.
int device_sm_count();
// The SMs a launch may occupy: the device's, or Options::sm_count_target (`target`) where that
// is fewer, `cluster` at least; 0 without a device.
int sm_budget(int target, int cluster = 1);

// ArchMismatch unless the current device is sm_90 (and built with sm_90a code); NotSupported
// for problems the kernel family does not take (dtypes, extents past the TMA's 32 bits).
Status can_implement(const GemmDesc& d);

// Workspace bytes for padded operand copies, split-K / stream-K partials and counters (args
// may be null: pointers taken as aligned). `split`: the split-K pieces asked for (1: none, 0:
// split_count's choice); `dynamic`: Options::dynamic_schedule; `sm_target`:
// Options::sm_count_target (0: every SM).
std::size_t workspace_bytes(const TileConfig& cfg, sched::Mode mode, const GemmDesc& d,
                            const GemmArgs* args, int split, bool dynamic = false,
                            int sm_target = 0);

// True when a launch in `mode` takes its tiles from a counter: Options::dynamic_schedule, the
// data-parallel mode, CTAs not in clusters.
constexpr bool dynamic_launch(const TileConfig& cfg, sched::Mode mode, bool asked) {
  return asked && mode == sched::Mode::DataParallel && cfg.cluster == 1;
}

// Runs one configuration in a scheduler mode (DataParallel; SplitK into `split` K pieces per
// tile, 0: split_count's choice; StreamK) as the planner's LaunchPlan says: stages the operands
// (workspace from opt, else gemmkit's device pool), encodes the tensor maps, launches the
// persistent grid on opt.stream.
Status run(const TileConfig& cfg, sched::Mode mode, int split, const GemmDesc& d,
           const GemmArgs& args, const Options& opt);

// Launches the kernel of one CTA tile and cluster size on staged operands (one translation
// unit each).
template <int BLK_M, int BLK_N, int CLUSTER>
Status launch_tma_ws(const gpu::Problem& pr, const TmaMaps& maps, const Launch& ln,
                     cudaStream_t stream);

}  // namespace gemmkit::sm90
