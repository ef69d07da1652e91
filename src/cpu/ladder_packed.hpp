// Rung 3's pieces, reused by rungs 4 and 5: packing into micro-panels and the BLIS loops.
//   pack A (MC, KC) -> MR-row micro-panels, each (KC, MR) contiguous, zero-padded to MR rows;
//   pack B (KC, NC) -> NR-column micro-panels, each (KC, NR) contiguous, zero-padded to NR;
//   a microkernel multiplies one A micro-panel by one B micro-panel into an (MR, NR) tile, so
//   it never sees a partial tile: edges are written back from that small temporary tile.
#pragma once
#include <algorithm>
#include <vector>

#include "cpu/isa_namespace.hpp"
#include "cpu/ladder.hpp"

namespace gemmkit::cpu::ladder {
inline namespace GEMMKIT_CPU_ISA {

template <int MR, class T>
void pack_a(const Gemm<T>& g, std::int64_t i0, std::int64_t mc, std::int64_t p0, std::int64_t kc,
            T* dst) {
  for (std::int64_t ir = 0; ir < mc; ir += MR) {
    const std::int64_t mr = std::min<std::int64_t>(MR, mc - ir);
    for (std::int64_t p = 0; p < kc; ++p, dst += MR)
      for (std::int64_t i = 0; i < MR; ++i)
        dst[i] = i < mr ? g.a[(i0 + ir + i) * g.sa.row + (p0 + p) * g.sa.col] : T(0);
  }
}

template <int NR, class T>
void pack_b(const Gemm<T>& g, std::int64_t p0, std::int64_t kc, std::int64_t j0, std::int64_t nc,
            T* dst) {
  for (std::int64_t jr = 0; jr < nc; jr += NR) {
    const std::int64_t nr = std::min<std::int64_t>(NR, nc - jr);
    for (std::int64_t p = 0; p < kc; ++p, dst += NR)
      for (std::int64_t j = 0; j < NR; ++j)
        dst[j] = j < nr ? g.b[(p0 + p) * g.sb.row + (j0 + jr + j) * g.sb.col] : T(0);
  }
}

// Writes the valid (mr, nr) corner of an (MR, NR) tile at (i0, j0). The first K block applies
// beta * C; later blocks add into D.
template <int NR, class T>
void write_tile(const Gemm<T>& g, const T* tile, std::int64_t i0, std::int64_t j0, std::int64_t mr,
                std::int64_t nr, bool first_k_block) {
  for (std::int64_t i = 0; i < mr; ++i)
    for (std::int64_t j = 0; j < nr; ++j) {
      if (first_k_block) {
        store_result(g, i0 + i, j0 + j, tile[i * NR + j]);
      } else {
        g.d[(i0 + i) * g.sd.row + (j0 + j) * g.sd.col] += T(g.alpha) * tile[i * NR + j];
      }
    }
}

// The macro-kernel: every (MR, NR) tile of one packed (MC, KC) x (KC, NC) block pair.
template <int MR, int NR, class T, class Tile>
void macro_kernel(const Gemm<T>& g, const T* pa, const T* pb, std::int64_t i0, std::int64_t mc,
                  std::int64_t j0, std::int64_t nc, std::int64_t kc, bool first, Tile tile_fn) {
  alignas(64) T tile[MR * NR];  // (MR, NR)
  for (std::int64_t jr = 0; jr < nc; jr += NR)
    for (std::int64_t ir = 0; ir < mc; ir += MR) {
      tile_fn(kc, pa + ir * kc, pb + jr * kc, tile);
      write_tile<NR>(g, tile, i0 + ir, j0 + jr, std::min<std::int64_t>(MR, mc - ir),
                     std::min<std::int64_t>(NR, nc - jr), first);
    }
}

// The five BLIS loops, one thread: jc (NC) -> pc (KC, pack B) -> ic (MC, pack A) -> macro.
template <int MR, int NR, class T, class Tile>
void packed_loops(const Gemm<T>& g, std::int64_t MC, std::int64_t KC, std::int64_t NC,
                  Tile tile_fn) {
  std::vector<T> pa((MC + MR) * KC), pb((NC + NR) * KC);
  for (std::int64_t j0 = 0; j0 < g.n; j0 += NC) {
    const std::int64_t nc = std::min(NC, g.n - j0);
    for (std::int64_t p0 = 0; p0 < g.k; p0 += KC) {
      const std::int64_t kc = std::min(KC, g.k - p0);
      pack_b<NR>(g, p0, kc, j0, nc, pb.data());
      for (std::int64_t i0 = 0; i0 < g.m; i0 += MC) {
        const std::int64_t mc = std::min(MC, g.m - i0);
        pack_a<MR>(g, i0, mc, p0, kc, pa.data());
        macro_kernel<MR, NR>(g, pa.data(), pb.data(), i0, mc, j0, nc, kc, p0 == 0, tile_fn);
      }
    }
  }
}

// Rung 4's AVX2+FMA tiles (defined in ladder_simd_avx2.cpp; call only when the CPU has AVX2).
constexpr int kSimdMR = 6;
template <class T>
constexpr int kSimdNR = 64 / static_cast<int>(sizeof(T));  // 16 floats, 8 doubles
template <class T>
void simd_tile(std::int64_t kc, const T* a, const T* b, T* tile);

}  // namespace GEMMKIT_CPU_ISA
}  // namespace gemmkit::cpu::ladder
