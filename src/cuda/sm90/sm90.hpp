// The sm90 production kernels as the registry sees them: which problems they take, the
// workspace they need, and one entry per CTA tile configuration.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/problem.hpp"
#include "cuda/sm90/tma_maps.hpp"
#include "gemmkit/gemm.hpp"
#include "sched/tile_scheduler.hpp"

namespace gemmkit::sm90 {

// A configuration of the TMA + wgmma warp-specialized kernel: CTA tile 128 x blk_n x 64,
// clusters of `cluster` CTAs along M multicasting their shared B tile.
struct TileConfig {
  int blk_n = 256;
  int cluster = 1;
};

// Ring stages of a tile width: as many (128 + blk_n) x 64 x 2-byte stages as fit in 227 KiB.
constexpr int stages_for(int blk_n) { return blk_n == 256 ? 4 : blk_n == 192 ? 5 : 6; }

// ArchMismatch unless the current device is sm_90 (and built with sm_90a code); NotSupported
// for problems the kernel family does not take (dtypes, extents past the TMA's 32 bits).
Status can_implement(const GemmDesc& d);

// Workspace bytes for padded operand copies and, with split > 1, the split-K partials (args may
// be null: pointers taken as aligned).
std::size_t workspace_bytes(const GemmDesc& d, const GemmArgs* args, int split);

// Runs one configuration in a scheduler mode (DataParallel, or SplitK into `split` K pieces;
// split 1 = none) as the planner's LaunchPlan says: stages the operands (workspace from opt,
// else gemmkit's device pool), encodes the tensor maps, launches the persistent grid on
// opt.stream.
Status run(const TileConfig& cfg, sched::Mode mode, int split, const GemmDesc& d,
           const GemmArgs& args, const Options& opt);

// Launches the kernel of one tile width and cluster size on staged operands (one translation
// unit each) over at most `sms` CTAs.
template <int BLK_N, int CLUSTER>
Status launch_tma_ws(const gpu::Problem& pr, const TmaMaps& maps, int sms, cudaStream_t stream);

}  // namespace gemmkit::sm90
