// The SIMD microkernel, written once over a vector-traits type V (AVX2 or AVX-512, float or
// double): an (MR, NV * W) tile held in MR * NV vector registers. Each K step loads NV vectors
// of the B micro-panel, broadcasts MR values of the A micro-panel and issues MR * NV FMAs.
// Tiles with unit-stride D (and C) rows are written back from registers, an edge tile's last
// vector of a row with a masked load and store (V::loadn, V::storen); every other tile goes
// through a small temporary tile and the scalar epilogue (write_back). A bf16 / fp16 C or D is
// widened / narrowed in registers by the traits' load_bf16, load_f16, store_bf16, store_f16 (f32
// only); the fused epilogue (bias, scales, activation) is applied there too.
#pragma once
#include <cstdint>
#include <type_traits>

#include "cpu/epilogue.hpp"
#include "cpu/isa_namespace.hpp"

namespace gemmkit::cpu {
inline namespace GEMMKIT_CPU_ISA {

template <class V, int MR, int NV>
struct SimdKernel {
  using T = typename V::T;
  static constexpr int kMR = MR, kNR = NV * V::W;
  static_assert(MR * NV + NV + 1 <= V::kRegisters, "accumulators + B row + one broadcast");

  static void tile(std::int64_t kc, const T* a, const T* b, const Epi<T>& e) {
    // Preconditions: a is a packed (KC, MR) micro-panel, b a packed (KC, NR) one, 64B-aligned.
    typename V::Reg acc[MR][NV];  // (MR, NR) in registers
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] = V::zero();

    // Prefetch the D (and C) rows of the tile: their stores/loads would otherwise stall the
    // epilogue on a cache miss (large power-of-two row strides make it worse). Every line of a
    // row: with a leading dimension off 16 floats a row straddles one more line (2-vCPU Xeon,
    // AVX2 capped, f32 1 thread, 1023^3 / 1025^3 / 1000^3 0.89 / 0.89 / 0.93x OpenBLAS with the
    // first line alone, 1.02 / 1.00 / 1.01x with both).
    if (e.fast) {
      for (int i = 0; i < MR; ++i) {
        const char* row = static_cast<const char*>(stored_at<T>(e.d_as, e.d, i * e.sd.row));
        const int bytes = kNR * stored_bytes<T>(e.d_as);
        for (int off = 0; off < bytes; off += 64) __builtin_prefetch(row + off, 1, 3);
        __builtin_prefetch(row + bytes - 1, 1, 3);  // a row off 64 bytes ends in one more line
      }
    }

    // Main loop: one K step per iteration, four unrolled, the A micro-panel (streamed from L2
    // past the B micro-panel held in L1) prefetched 8 K steps ahead. AVX2 capped, 2048^3
    // alternated pair ratios against OpenBLAS without / with: f64 1 thread 0.91-0.98 / 0.95-1.01,
    // 2 threads median 0.94 / 0.97 (five rounds), f32 1 thread 0.96-0.99 / 0.99-1.03; AVX-512
    // alike either way.
#pragma GCC unroll 4
    for (std::int64_t p = 0; p < kc; ++p, a += MR, b += kNR) {
      __builtin_prefetch(a + 8 * MR, 0, 3);
      typename V::Reg bv[NV];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) bv[v] = V::load(b + v * V::W);
#pragma GCC unroll 32
      for (int i = 0; i < MR; ++i) {
        const typename V::Reg x = V::broadcast(a + i);
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) acc[i][v] = V::fma(x, bv[v], acc[i][v]);
      }
    }

    // Epilogue. From a copy: write_back takes the tile by reference, and when `acc` itself
    // escapes GCC 12 keeps it in memory and stores all MR * NV accumulators every K step (the
    // AVX2 sgemm ran at half speed so).
    typename V::Reg out[MR][NV];
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) out[i][v] = acc[i][v];
    write_back(out, e);
  }

  // The write-back of one tile, by the cheapest path that serves it: full unit-stride tiles
  // from registers (plain f32 / f64; bf16 / fp16 C or D, bias, scales and ReLU widened,
  // narrowed and applied in registers; GELU / SiLU through an L1 tile and vector activations),
  // plain f32 / f64 unit-stride edge tiles from registers too (write_edge), everything else
  // (other edges, strided D) through a temporary tile and the scalar epilogue.
  __attribute__((always_inline)) static void write_back(const typename V::Reg (&acc)[MR][NV],
                                                        const Epi<T>& e) {
    if (e.fast && e.native() && e.plain()) {
      const typename V::Reg alpha = V::set1(e.alpha), beta = V::set1(e.beta);
#pragma GCC unroll 32
      for (int i = 0; i < MR; ++i) {
        T* d = static_cast<T*>(e.d) + i * e.sd.row;
        const T* c = static_cast<const T*>(e.c) + i * e.sc.row;
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) {
          typename V::Reg r = V::mul(alpha, acc[i][v]);
          if (e.read_c) r = V::fma(beta, V::loadu(c + v * V::W), r);
          V::storeu(d + v * V::W, r);
        }
      }
      return;
    }
    if (e.unit && e.native() && e.plain()) return write_edge(acc, e);
    if (e.fast && (e.ep.act == Activation::None || e.ep.act == Activation::Relu)) {
      // bf16 / fp16 C or D, a bias, ReLU: the same arithmetic, widened and narrowed in registers.
      with_stored<T>(e.d_as, [&](auto da) {
        with_stored<T>(e.read_c ? e.c_as : Stored::Native, [&](auto ca) {
          write_stored<decltype(da)::value, decltype(ca)::value>(acc, e);
        });
      });
      return;
    }
    if constexpr (std::is_same_v<T, float>) {
      if (e.fast) {  // GELU / SiLU: the pre-activation tile in L1, act over it in vectors, to D
        alignas(64) T pre[MR * kNR];  // (MR, NR)
        Epi<T> to_pre = e;
        to_pre.d = pre, to_pre.sd = {kNR, 1}, to_pre.d_as = Stored::Native;
        to_pre.ep.act = Activation::None;
        with_stored<T>(e.read_c ? e.c_as : Stored::Native, [&](auto ca) {
          write_stored<Stored::Native, decltype(ca)::value>(acc, to_pre);
        });
        with_activation(e.ep.act,
                        [&](auto a) { activate_f32_n<decltype(a)::value>(pre, MR * kNR); });
        with_stored<T>(e.d_as, [&](auto da) {
          for (int i = 0; i < MR; ++i)
            for (int v = 0; v < NV; ++v)
              store_as<decltype(da)::value>(e.d, i * e.sd.row + v * V::W,
                                            V::load(pre + i * kNR + v * V::W));
        });
        return;
      }
    }
    alignas(64) T tmp[MR * kNR];  // (MR, NR) temporary tile for edges and strided outputs
    for (int i = 0; i < MR; ++i)
      for (int v = 0; v < NV; ++v) V::storeu(tmp + i * kNR + v * V::W, acc[i][v]);
    epilogue_tile<kNR>(tmp, e);
  }

  // An edge tile (fewer than MR rows or NR columns) of plain f32 / f64 with unit-stride D and
  // C: the full tile's arithmetic on its valid rows, a row's last partial vector loaded and
  // stored under a mask; nothing past the edge is read or written.
  __attribute__((always_inline)) static void write_edge(const typename V::Reg (&acc)[MR][NV],
                                                        const Epi<T>& e) {
    const typename V::Reg alpha = V::set1(e.alpha), beta = V::set1(e.beta);
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i) {
      if (i >= e.mr) break;
      T* d = static_cast<T*>(e.d) + i * e.sd.row;
      const T* c = static_cast<const T*>(e.c) + i * e.sc.row;
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        const int n = e.nr - v * V::W;  // valid lanes of this vector
        if (n <= 0) break;
        typename V::Reg r = V::mul(alpha, acc[i][v]);
        if (n >= V::W) {
          if (e.read_c) r = V::fma(beta, V::loadu(c + v * V::W), r);
          V::storeu(d + v * V::W, r);
        } else {
          if (e.read_c) r = V::fma(beta, V::loadn(c + v * V::W, n), r);
          V::storen(d + v * V::W, n, r);
        }
      }
    }
  }

  // Vectors of C and D stored as S.
  template <Stored S>
  static typename V::Reg load_as(const void* base, std::int64_t idx) {
    if constexpr (S == Stored::Bf16)
      return V::load_bf16(static_cast<const std::uint16_t*>(base) + idx);
    else if constexpr (S == Stored::F16)
      return V::load_f16(static_cast<const std::uint16_t*>(base) + idx);
    else
      return V::loadu(static_cast<const T*>(base) + idx);
  }
  template <Stored S>
  static void store_as(void* base, std::int64_t idx, typename V::Reg r) {
    if constexpr (S == Stored::Bf16)
      V::store_bf16(static_cast<std::uint16_t*>(base) + idx, r);
    else if constexpr (S == Stored::F16)
      V::store_f16(static_cast<std::uint16_t*>(base) + idx, r);
    else
      V::storeu(static_cast<T*>(base) + idx, r);
  }

  static typename V::Reg load_any(Stored s, const void* base, std::int64_t idx) {
    if constexpr (std::is_same_v<T, float>) {
      if (s == Stored::Bf16) return load_as<Stored::Bf16>(base, idx);
      if (s == Stored::F16) return load_as<Stored::F16>(base, idx);
    }
    return load_as<Stored::Native>(base, idx);
  }

  // The register write-back of a full unit-stride tile with D stored as DA and C as CA:
  // act(alpha * acc + beta * C + bias) for act = none or ReLU (maxps(0, x), as core::activate).
  template <Stored DA, Stored CA>
  static void write_stored(const typename V::Reg (&acc)[MR][NV], const Epi<T>& e) {
    const typename V::Reg beta = V::set1(e.beta), zero = V::zero();
    const bool bias_cols = e.ep.bias && !e.ep.bias_rows, relu = e.ep.act == Activation::Relu;
    typename V::Reg bias_col[NV], scale_col[NV];  // the same NR values for every row
    alignas(64) T sc[kNR];
    for (int j = 0; j < kNR; ++j) sc[j] = e.ep.scol ? T(e.ep.scol[j]) : T(1);
    for (int v = 0; v < NV; ++v) {
      bias_col[v] = bias_cols ? load_any(e.ep.bias_as, e.ep.bias, v * V::W) : zero;
      scale_col[v] = V::loadu(sc + v * V::W);
    }
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i) {
      const typename V::Reg bias_row =
          e.ep.bias && e.ep.bias_rows ? V::set1(load_stored<T>(e.ep.bias_as, e.ep.bias, i)) : zero;
      const typename V::Reg alpha = V::set1(e.ep.srow ? e.alpha * T(e.ep.srow[i]) : e.alpha);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        typename V::Reg r = V::mul(alpha, acc[i][v]);
        if (e.ep.scol) r = V::mul(r, scale_col[v]);
        if (e.read_c) r = V::fma(beta, load_as<CA>(e.c, i * e.sc.row + v * V::W), r);
        if (e.ep.bias) r = V::add(r, bias_cols ? bias_col[v] : bias_row);
        if (relu) r = V::max(zero, r);
        store_as<DA>(e.d, i * e.sd.row + v * V::W, r);
      }
    }
  }
};

}  // namespace GEMMKIT_CPU_ISA
}  // namespace gemmkit::cpu
