// Tile schedulers: which output tiles and which K-iterations of them a worker (a persistent
// CTA, a CPU thread) computes. One interface for every decomposition, computable on the host
// and on the device, so that kernels, the ledger and the host tests read the same schedule.
//
//   DataParallel  each output tile whole, tiles dealt round-robin to the workers;
//   SplitK        each tile's K-iterations cut into `splits` pieces, pieces dealt round-robin
//                 piece by piece: the tiles of one K range side by side, so that the workers
//                 launched together read the same panels of A and B (and the L2 serves them
//                 once), not the pieces of one tile, which share nothing;
//   StreamK       all but the last (partial) wave data-parallel; the K-iterations of the
//                 remaining tiles (the partial wave plus one full wave, when there is one)
//                 spread evenly over the workers, at least `min_iters` per worker, so that
//                 every worker ends at the same time; a worker's share may span tiles.
//
// Output tiles are ordered batch by batch; inside a batch in grouped ("super-row") order:
// panels of `group` tile rows, each walked column of tiles by column of tiles, so that the
// workers busy at one time share a few rows of A and columns of B in the L2.
// All counts are 64-bit.
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define GEMMKIT_HD __host__ __device__ __forceinline__
#else
#define GEMMKIT_HD inline
#endif

namespace gemmkit::sched {

using std::int64_t;

GEMMKIT_HD constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Quotient and remainder of two of the scheduler's counts (tiles, pieces, K-iterations). On
// the device every count a kernel schedules is below 2^31 (the sm90 kernels refuse larger
// problems, a grid has fewer blocks), so the division is 32-bit: straight-line code, where a
// 64-bit one jumps around its slow path and each jump target is an instruction-cache miss on
// the way to a kernel's first load. The host divides in 64 bits.
GEMMKIT_HD int64_t count_div(int64_t a, int64_t b) {
#if defined(__CUDA_ARCH__)
  return static_cast<int64_t>(static_cast<std::uint32_t>(a) / static_cast<std::uint32_t>(b));
#else
  return a / b;
#endif
}
GEMMKIT_HD int64_t count_mod(int64_t a, int64_t b) {
#if defined(__CUDA_ARCH__)
  return static_cast<int64_t>(static_cast<std::uint32_t>(a) % static_cast<std::uint32_t>(b));
#else
  return a % b;
#endif
}

enum class Mode : std::uint8_t { DataParallel, SplitK, StreamK };

// A GEMM as the scheduler sees it: output extent, K-iterations (ceil(K / tile K)), batch.
struct Problem {
  int64_t m = 0, n = 0, k_iters = 0, batch = 1;
  int tile_m = 1, tile_n = 1;
};

struct Params {
  int64_t tiles_m = 0, tiles_n = 0, batch = 1, k_iters = 0;
  int64_t workers = 1;
  int group = 8;                 // raster panel height in tiles
  Mode mode = Mode::DataParallel;
  int64_t splits = 1;            // SplitK: pieces per tile
  int64_t dp_tiles = 0;          // StreamK: tiles [0, dp_tiles) data-parallel
  int64_t sk_workers = 0;        // StreamK: workers [0, sk_workers) share the rest by K
  int64_t sk_iters = 0;          // StreamK: K-iterations of tiles [dp_tiles, tiles)
  // DataParallel on the device: the workers take tiles from a counter in device memory, in
  // the same linear order, instead of the round-robin deal (src/cuda/sm90/tile_feed.cuh);
  // next() below is then the host's view of the deal, not the device's.
  bool dynamic = false;

  GEMMKIT_HD int64_t tiles_per_batch() const { return tiles_m * tiles_n; }
  GEMMKIT_HD int64_t tiles() const { return tiles_per_batch() * batch; }
};

// One piece of work: output tile (batch, tile_m, tile_n) = linear `tile`, K-iterations
// [k_begin, k_end). A tile computed in several pieces has its first piece at k_begin == 0
// and its last at k_end == k_iters.
struct Work {
  int64_t tile = 0, batch = 0, tile_m = 0, tile_n = 0;
  int64_t k_begin = 0, k_end = 0;
  int64_t split = 0;  // SplitK: which of the tile's `splits` pieces (0 otherwise)
};

// `splits` is read by SplitK (clamped to [1, k_iters]); `min_iters` by StreamK.
GEMMKIT_HD Params make_params(const Problem& pb, Mode mode, int64_t workers, int group = 8,
                              int64_t splits = 1, int64_t min_iters = 8) {
  Params p;
  p.tiles_m = ceil_div(pb.m, pb.tile_m);
  p.tiles_n = ceil_div(pb.n, pb.tile_n);
  p.batch = pb.batch;
  p.k_iters = pb.k_iters;
  p.workers = workers < 1 ? 1 : workers;
  p.group = group < 1 ? 1 : group;
  p.mode = mode;
  const int64_t tiles = p.tiles();
  if (mode == Mode::SplitK) {
    p.splits = splits < 1 ? 1 : splits;
    if (p.splits > p.k_iters) p.splits = p.k_iters > 0 ? p.k_iters : 1;  // K == 0: one piece
  } else if (mode == Mode::StreamK && p.k_iters == 0) {
    p.dp_tiles = tiles;  // nothing to spread: every tile's epilogue once (beta * C)
  } else if (mode == Mode::StreamK) {
    const int64_t waves = tiles / p.workers, rem = tiles % p.workers;
    const int64_t sk_tiles = rem == 0 ? 0 : rem + (waves >= 1 ? p.workers : 0);
    p.dp_tiles = tiles - sk_tiles;
    p.sk_iters = sk_tiles * p.k_iters;
    const int64_t per = min_iters < 1 ? 1 : min_iters;
    p.sk_workers = p.sk_iters == 0 ? 0 : p.sk_iters / per < p.workers ? p.sk_iters / per : p.workers;
    if (p.sk_iters > 0 && p.sk_workers == 0) p.sk_workers = 1;
  }
  return p;
}

// Linear tile index -> (batch, tile_m, tile_n) in grouped order.
GEMMKIT_HD Work tile_at(const Params& p, int64_t tile) {
  Work w;
  w.tile = tile;
  const int64_t per_batch = p.tiles_per_batch();
  w.batch = count_div(tile, per_batch);
  const int64_t t = count_mod(tile, per_batch);
  const int64_t per_panel = static_cast<int64_t>(p.group) * p.tiles_n;
  const int64_t first_m = count_div(t, per_panel) * p.group;
  const int64_t rows = p.tiles_m - first_m < p.group ? p.tiles_m - first_m : p.group;
  const int64_t r = count_mod(t, per_panel);
  w.tile_m = first_m + count_mod(r, rows);
  w.tile_n = count_div(r, rows);
  w.k_begin = 0;
  w.k_end = p.k_iters;
  return w;
}

// SplitK: the first K-iteration of piece s of a tile: k_iters split as evenly as integers
// allow, the first k_iters % splits pieces one iteration longer.
GEMMKIT_HD int64_t split_begin(const Params& p, int64_t s) {
  const int64_t q = count_div(p.k_iters, p.splits), r = count_mod(p.k_iters, p.splits);
  return s * q + (s < r ? s : r);
}

// The work items of one worker, in order: `Scheduler s(p, worker); while (s.next(&w)) ...`.
// It refers to `p` (on the device: a __grid_constant__ kernel parameter, read from the
// parameter bank, so a worker's state is five integers).
class Scheduler {
 public:
  GEMMKIT_HD Scheduler(const Params& p, int64_t worker) : p_(p), worker_(worker) {
    if (p.mode == Mode::StreamK && worker < p.sk_workers) {
      sk_pos_ = share_begin(worker);
      sk_end_ = share_begin(worker + 1);
    }
  }

  GEMMKIT_HD bool next(Work* out) {
    switch (p_.mode) {
      case Mode::DataParallel: {
        const int64_t tile = worker_ + i_ * p_.workers;
        if (tile >= p_.tiles()) return false;
        ++i_;
        *out = tile_at(p_, tile);
        return true;
      }
      case Mode::SplitK: {
        const int64_t unit = worker_ + i_ * p_.workers;
        const int64_t tiles = p_.tiles();
        if (unit >= tiles * p_.splits) return false;
        ++i_;
        const int64_t s = count_div(unit, tiles);
        *out = tile_at(p_, count_mod(unit, tiles));
        out->split = s;
        out->k_begin = split_begin(p_, s);
        out->k_end = split_begin(p_, s + 1);
        return true;
      }
      default: {  // StreamK: data-parallel tiles first, then this worker's share of the rest
        const int64_t tile = worker_ + i_ * p_.workers;
        if (tile < p_.dp_tiles) {
          ++i_;
          *out = tile_at(p_, tile);
          return true;
        }
        if (sk_pos_ >= sk_end_) return false;
        const int64_t t = sk_pos_ / p_.k_iters, k0 = sk_pos_ % p_.k_iters;
        const int64_t k1 = (t + 1) * p_.k_iters - sk_pos_ < sk_end_ - sk_pos_
                               ? p_.k_iters
                               : k0 + (sk_end_ - sk_pos_);
        *out = tile_at(p_, p_.dp_tiles + t);
        out->k_begin = k0;
        out->k_end = k1;
        sk_pos_ += k1 - k0;
        return true;
      }
    }
  }

 private:
  // First stream-K iteration of worker w: the iterations split as evenly as integers allow.
  GEMMKIT_HD int64_t share_begin(int64_t w) const { return w * p_.sk_iters / p_.sk_workers; }

  const Params& p_;
  int64_t worker_;
  int64_t i_ = 0;
  int64_t sk_pos_ = 0, sk_end_ = 0;
};

}  // namespace gemmkit::sched
