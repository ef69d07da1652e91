// Split-K and stream-K for the sm90 kernels: the workspace the pieces of a tile meet in, and
// how many pieces a problem is cut into. Host and device code.
#pragma once
#include <cstddef>
#include <cstdint>

namespace gemmkit::sm90 {

// Each split-K piece's f32 accumulators (summed by the reduction kernel after the GEMM), or
// each stream-K worker's parked tile and its flag. The flags are zero before a launch and
// zero after it (the owner that reads a parked tile clears its flag).
struct SplitWorkspace {
  float* partial = nullptr;
  unsigned* flags = nullptr;
};

// CTA tiles a split-K launch may have (at most one piece per CTA of the grid), and the
// stream-K flags of a launch (one per CTA of the grid).
inline constexpr std::int64_t kMaxSplitTiles = 1024;

// Bytes of partial accumulators of `tiles` CTA tiles of blk_m x blk_n cut into `splits`
// pieces.
constexpr std::size_t split_partial_bytes(std::int64_t tiles, std::int64_t splits, int blk_m,
                                          int blk_n) {
  return splits <= 1 ? 0
                     : static_cast<std::size_t>(tiles * splits) * static_cast<std::size_t>(blk_m) *
                           static_cast<std::size_t>(blk_n) * sizeof(float);
}

// The thread groups of the split-K reduction (split_reduce.cuh) for a tile of `quads` float4s
// cut into S pieces: float4 e of the tile is summed by G groups, group g adding pieces
// [g S / G, (g + 1) S / G) in order, then the groups' sums in group order, so the bits depend on
// S and the tile alone. G = 256 / (quads / S rounded up to a power of two, at most 256): the
// reduction then has about as many CTAs of 256 threads as the GEMM had pieces (one per SM),
// each thread adding about S / G pieces.
constexpr int split_groups(int quads, std::int64_t splits) {
  const std::int64_t widest = (quads + splits - 1) / splits;
  std::int64_t per = 1;
  while (per < widest && per < 256) per *= 2;
  return static_cast<int>(256 / per);
}

// Stream-K: the K-iterations a worker takes at least (the ring must fill), and the partial
// accumulators of a launch of `ctas` CTAs of 128 x blk_n: one parked tile per CTA at most.
inline constexpr std::int64_t kStreamKMinIters = 4;
// CTA tiles with a stream-K mode: 128 rows (the fixup is written for two warpgroups of 64
// rows), up to 192 wide (at 256 its registers beside the 128 accumulators per thread would
// spill).
constexpr bool stream_k_tile(int blk_m, int blk_n) { return blk_m == 128 && blk_n <= 192; }
constexpr std::size_t stream_partial_bytes(std::int64_t ctas, int blk_n) {
  return static_cast<std::size_t>(ctas) * 128u * static_cast<std::size_t>(blk_n) * sizeof(float);
}

// The pieces per tile a problem of `tiles` CTA tiles and `k_iters` K-iterations is cut into
// on `ctas` resident CTAs: `requested` when > 0, else enough to fill the CTAs when the tiles
// alone leave more than half of them idle; always at least 4 K-iterations a piece (the ring
// must fill), at most one piece per CTA (one wave), at most kMaxSplitTiles tiles.
constexpr std::int64_t split_count(std::int64_t tiles, std::int64_t k_iters, std::int64_t ctas,
                                   std::int64_t requested) {
  if (tiles <= 0 || k_iters <= 0 || tiles > kMaxSplitTiles || tiles > ctas) return 1;
  std::int64_t s = requested > 0 ? requested : (2 * tiles <= ctas ? ctas / tiles : 1);
  if (s > ctas / tiles) s = ctas / tiles;
  const std::int64_t by_k = requested > 0 ? k_iters : k_iters / 4;
  if (s > by_k) s = by_k;
  return s < 1 ? 1 : s;
}

}  // namespace gemmkit::sm90
