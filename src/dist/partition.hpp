// Host-side partitioning for tensor-parallel GEMM: which rows (of M, or N, or K) each of P ranks
// owns, how one rank's local GEMM is cut into chunks for overlap, and which rank supplies (or
// receives) each part of a chunk. Pure integer arithmetic: no CUDA, no NCCL.
//
//   shards   P half-open ranges [begin, end) tiling [0, total) in rank order; equal (the first
//            total % P ranks get one more) or from caller-given sizes.
//   chunks   C ranges tiling [0, total) the same way: the overlap pipeline's units.
//   pieces   a chunk cut at the shard boundaries it crosses: each piece lies in one rank's shard
//            and says where it starts in that rank's local (shard) rows. A column-parallel chunk
//            gathers its pieces from their owners (a broadcast each); a row-parallel chunk sends
//            each piece to its owner (a reduce each). Every row of the chunk is in exactly one.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gemmkit::dist {

struct Range {
  std::int64_t begin = 0, end = 0;
  std::int64_t size() const noexcept { return end - begin; }
  friend bool operator==(const Range&, const Range&) = default;
};

struct Piece {
  int rank = 0;            // the shard (rank) the rows belong to
  Range rows;              // global rows
  std::int64_t local = 0;  // first row inside that rank's shard
};

// Equal shards of `total` over `parts`: sizes differ by at most one, larger ones first.
// Empty when total < 0 or parts < 1.
std::vector<Range> equal_ranges(std::int64_t total, int parts);

// Shards of the given sizes, in order. Empty when a size is negative.
std::vector<Range> ranges_of_sizes(std::span<const std::int64_t> sizes);

// Why `sizes` cannot shard `total` over `parts` ranks (empty when they can): the count must be
// parts, each size >= 0, the sum exactly total (computed without overflow).
std::string check_sizes(std::span<const std::int64_t> sizes, std::int64_t total, int parts);

// True when every size is the same (ncclAllGather / ncclReduceScatter then apply directly).
bool all_equal(std::span<const Range> shards) noexcept;

// The chunk plan: `chunks` equal ranges of [0, total), never more chunks than rows (so no chunk
// is empty unless total == 0, which gives one empty chunk). chunks < 1 is taken as 1.
std::vector<Range> chunk_plan(std::int64_t total, int chunks);

// The chunk `rows` cut at the boundaries of `shards`; empty shards contribute nothing.
std::vector<Piece> pieces_of(Range rows, std::span<const Range> shards);

}  // namespace gemmkit::dist
