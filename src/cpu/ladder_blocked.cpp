// Rung 2, blocked: the tutorial's tiled loop (section 03). An output tile keeps a local
// accumulator while the K loop walks tiles of A and B; each loaded A element now serves
// kTileN outputs and each B element kTileM outputs, and the tiles stay in cache.
#include <algorithm>

#include "cpu/ladder.hpp"

namespace gemmkit::cpu {

namespace {
constexpr std::int64_t kTileM = 32, kTileN = 64, kTileK = 128;
}

template <class T>
void ladder_blocked(const Gemm<T>& g, int) {
  T acc[kTileM][kTileN];  // (TILE_M, TILE_N)
  for (std::int64_t i0 = 0; i0 < g.m; i0 += kTileM) {
    const std::int64_t mt = std::min(kTileM, g.m - i0);
    for (std::int64_t j0 = 0; j0 < g.n; j0 += kTileN) {
      const std::int64_t nt = std::min(kTileN, g.n - j0);
      for (std::int64_t i = 0; i < mt; ++i)
        for (std::int64_t j = 0; j < nt; ++j) acc[i][j] = T(0);
      for (std::int64_t p0 = 0; p0 < g.k; p0 += kTileK) {
        const std::int64_t kt = std::min(kTileK, g.k - p0);
        // accumulator += A_tile (mt, kt) @ B_tile (kt, nt)
        for (std::int64_t i = 0; i < mt; ++i)
          for (std::int64_t p = p0; p < p0 + kt; ++p) {
            const T x = g.a[(i0 + i) * g.sa.row + p * g.sa.col];
            const T* brow = g.b + p * g.sb.row + j0 * g.sb.col;
            for (std::int64_t j = 0; j < nt; ++j) acc[i][j] += x * brow[j * g.sb.col];
          }
      }
      for (std::int64_t i = 0; i < mt; ++i)
        for (std::int64_t j = 0; j < nt; ++j) store_result(g, i0 + i, j0 + j, acc[i][j]);
    }
  }
}

template void ladder_blocked<float>(const Gemm<float>&, int);
template void ladder_blocked<double>(const Gemm<double>&, int);

}  // namespace gemmkit::cpu
