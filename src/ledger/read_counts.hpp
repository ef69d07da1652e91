// Logical read counts (tutorial sections 02-03): how many input elements a loop nest reads and
// how many output elements it writes, counting every indexed access and modelling no cache.
#pragma once
#include <cstdint>

namespace gemmkit::ledger {

struct ReadCounts {
  std::int64_t reads = 0;   // input elements read (A and B)
  std::int64_t writes = 0;  // output elements written
  std::int64_t reads_a = 0, reads_b = 0;
};

// Output tiles tile_m x tile_n, stepping along K (the K step does not change the count).
// Every A row is read once per tile column and every B column once per tile row:
//   reads = M*K*ceil(N/tile_n) + K*N*ceil(M/tile_m),  writes = M*N.
// tile 1x1 is the naive triple loop: 2*M*N*K reads (4x4x4: 128 reads, 16 writes);
// 2x2 tiles on 4x4x4: 64; one 4x4 tile: 32.
ReadCounts logical_reads(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t tile_m = 1,
                         std::int64_t tile_n = 1) noexcept;

// The same count by walking the loop nest (for checking the formula on small sizes).
ReadCounts logical_reads_by_walking(std::int64_t m, std::int64_t n, std::int64_t k,
                                    std::int64_t tile_m, std::int64_t tile_n,
                                    std::int64_t tile_k) noexcept;

}  // namespace gemmkit::ledger
