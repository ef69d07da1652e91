// Weight-only GEMM for few rows (w8a16 / w4a16 decode shapes: M <= 16): D = A (M, K) * W (K, N)
// with W integer (i8, or i4 two a byte) or fp4 (e2m1 two a byte, MX scales) and K-contiguous (the
// layout of a linear layer's weight [N, K] row-major taken transposed). The point is bytes: W is
// streamed once, at 1 or 1/2 byte an element, and dequantized on the fly into an L1 buffer, never
// packed as f32. An f32 W (Weights::F32, the SIMD sgemm's M = 2..16) is read in place instead:
// whole blocks of CN columns straight from B, only a block past N's edge copied into the buffer:
//   mainloop   columns in blocks of CN = 4; for each K chunk (512): the 4 columns' weights
//              dequantized into wbuf ((q - z) * s per group, four contiguous runs), then the
//              rows of A (converted to f32 once, K contiguous), 4 (AVX-512), 2 or 1 at a time,
//              times the 4 runs into 4 x 4 / 2 x 4 / 1 x 4 vector accumulators (64-byte GCC
//              vectors: one zmm, or two ymm); the weights' bytes are prefetched ahead;
//   scheduler  the team splits the column blocks (each thread its own wbuf and accumulators);
//   epilogue   per element, after the last group: alpha, the row / column scales, beta * C, the
//              bias and the activation (epilogue.hpp's arithmetic), then D's one rounding.
// i4 and e2m1 columns hold element 2t in the low and 2t + 1 in the high nibble of byte t: the
// group's weights are dequantized as [even K..., odd K...] and A's rows are stored in the same
// order (a permutation of each group's K terms), so every loop runs over contiguous memory.
#pragma once
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "cpu/cpu_info.hpp"
#include "cpu/gemm_driver.hpp"
#include "cpu/isa_namespace.hpp"
#include "cpu/weight_stream_shape.hpp"
#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace gemmkit::cpu {

inline namespace GEMMKIT_CPU_ISA {

enum class Weights : std::uint8_t { I8, I4, E2M1, F32 };

template <Weights Kind>
struct WeightStream {
  static constexpr bool I4 = Kind == Weights::I4 || Kind == Weights::E2M1;  // two a byte
  // Columns per block, rows per step, lanes. Four rows x four columns take 16 accumulators and
  // 8 operands: zmm registers hold them (32); as pairs of ymm (16 registers) two rows do.
#if defined(__AVX512F__)
  static constexpr int CN = 4, RM = 4, W = 16;  // RM: the most rows at a time
#else
  // One ymm a vector: two rows take 8 accumulators and 6 operands, 14 of the 16 registers
  // (as pairs of ymm they spilled: the f32 M = 16 stream ran at 0.4x OpenBLAS).
  static constexpr int CN = 4, RM = 2, W = 8;
#endif
  typedef float Vec __attribute__((vector_size(W * sizeof(float))));
  // c += x * w, fused where the file has FMA and ymm vectors (-std=c++20 keeps GCC from
  // contracting it on its own). By reference: a Vec in a signature changes the ABI (-Wpsabi).
  static void fma(Vec& c, const Vec& x, const Vec& w) {
#if defined(__FMA__) && !defined(__AVX512F__)
    c = Vec(_mm256_fmadd_ps(__m256(x), __m256(w), __m256(c)));
#else
    c += x * w;
#endif
  }

  // One batch entry; `p` is make_problem's (not oriented): p.bt(j, p) = B's column j.
  static void run(const Problem<float>& p, std::int64_t group, int nt) {
    const std::int64_t m = p.m, n = p.n, k = p.k, G = group;
    PackWorkspace& ws = thread_workspace();
    // A as f32, row i at ab + i * k, each group's K in the order of the dequantized weights.
    auto* ab = static_cast<float*>(ws.vec.get(sizeof(float) * (m * k + 16)));
    convert_a(p, G, ab);
    const std::int64_t blocks = (n + CN - 1) / CN;
    nt = static_cast<int>(std::min<std::int64_t>(nt, blocks));
    auto body = [&](int tid) {
      alignas(64) float wbuf[CN * kChunk];
      Vec acc[16 * CN];  // (M, CN) accumulators, M <= 16
      for (std::int64_t b = blocks * tid / nt; b < blocks * (tid + 1) / nt; ++b) {
        const std::int64_t j0 = b * CN, nc = std::min<std::int64_t>(CN, n - j0);
        std::fill(acc, acc + m * CN, Vec{});
        for (std::int64_t p0 = 0; p0 < k; p0 += kChunk) {
          const std::int64_t kc = std::min(kChunk, k - p0);  // whole groups: K % G == 0
          const float* w = wbuf;  // (CN, kc), column c at w + c * ws
          std::int64_t ws = kc;
          if (Kind == Weights::F32 && nc == CN) {
            w = static_cast<const float*>(p.bt.base) + j0 * p.bt.s.row + p0;
            ws = p.bt.s.row;
            for (int c = 0; c < CN; ++c)  // the next chunk of each column
              for (std::int64_t q = kc; q < 2 * kc; q += 64 / sizeof(float))
                __builtin_prefetch(w + c * ws + q);
          } else {
            for (int c = 0; c < CN; ++c)
              for (std::int64_t g = 0; g < kc; g += G)
                dequant(p, j0 + std::min<std::int64_t>(c, nc - 1), p0 + g, G, wbuf + c * kc + g);
          }
          for (std::int64_t i = 0; i < m;) {  // 4, 2 or 1 rows at a time: no padded rows
            const std::int64_t r = RM == 4 && m - i >= 4 ? 4 : m - i >= 2 ? 2 : 1;
            rows(r, ab + i * k + p0, k, w, ws, kc, &acc[i * CN]);
            i += r;
          }
        }
        for (std::int64_t i = 0; i < m; ++i)
          for (int c = 0; c < nc; ++c) {
            const Vec& v = acc[i * CN + c];
            float s = 0;
            for (int l = 0; l < W; ++l) s += v[l];
            finish(p, i, j0 + c, s);
          }
      }
    };
    if (nt <= 1) {
      body(0);
    } else {
#pragma omp parallel num_threads(nt)
      body(omp_get_thread_num());
    }
  }

  // K per dequantized chunk: 4 columns of 512 floats (8 KiB) and the rows' 512 floats stay in
  // L1 while the accumulators are loaded and stored once a chunk (once a group cost 1/3 more).
  static constexpr std::int64_t kChunk = 512;

  // Rows i .. i + RM - 1 times the CN runs of G weights, run c at w + c * ws: RM x 4
  // accumulators over G / W steps.
  static void rows(std::int64_t r, const float* a0, std::int64_t k, const float* w,
                   std::int64_t ws, std::int64_t G, Vec* acc) {
    if (RM == 4 && r == 4) return rows4(a0, k, w, ws, G, acc);
    if (r == 2) return rows2(a0, k, w, ws, G, acc);
    rows1(a0, w, ws, G, acc);
  }
  static void rows1(const float* a0, const float* w, std::int64_t ws, std::int64_t G, Vec* acc) {
    Vec c0 = acc[0], c1 = acc[1], c2 = acc[2], c3 = acc[3];
    for (std::int64_t s = 0; s < G; s += W) {
      Vec x0, w0, w1, w2, w3;
      std::memcpy(&x0, a0 + s, sizeof(Vec));
      std::memcpy(&w0, w + s, sizeof(Vec));
      std::memcpy(&w1, w + ws + s, sizeof(Vec));
      std::memcpy(&w2, w + 2 * ws + s, sizeof(Vec));
      std::memcpy(&w3, w + 3 * ws + s, sizeof(Vec));
      fma(c0, x0, w0), fma(c1, x0, w1), fma(c2, x0, w2), fma(c3, x0, w3);
    }
    acc[0] = c0, acc[1] = c1, acc[2] = c2, acc[3] = c3;
  }
  static void rows4(const float* a0, std::int64_t k, const float* w, std::int64_t ws,
                    std::int64_t G, Vec* acc) {
    const float *a1 = a0 + k, *a2 = a1 + k, *a3 = a2 + k;
    Vec c00 = acc[0], c01 = acc[1], c02 = acc[2], c03 = acc[3];
    Vec c10 = acc[4], c11 = acc[5], c12 = acc[6], c13 = acc[7];
    Vec c20 = acc[8], c21 = acc[9], c22 = acc[10], c23 = acc[11];
    Vec c30 = acc[12], c31 = acc[13], c32 = acc[14], c33 = acc[15];
    for (std::int64_t s = 0; s < G; s += W) {
      Vec x0, x1, x2, x3, w0, w1, w2, w3;
      std::memcpy(&w0, w + s, sizeof(Vec));
      std::memcpy(&w1, w + ws + s, sizeof(Vec));
      std::memcpy(&w2, w + 2 * ws + s, sizeof(Vec));
      std::memcpy(&w3, w + 3 * ws + s, sizeof(Vec));
      std::memcpy(&x0, a0 + s, sizeof(Vec));
      std::memcpy(&x1, a1 + s, sizeof(Vec));
      std::memcpy(&x2, a2 + s, sizeof(Vec));
      std::memcpy(&x3, a3 + s, sizeof(Vec));
      fma(c00, x0, w0), fma(c01, x0, w1), fma(c02, x0, w2), fma(c03, x0, w3);
      fma(c10, x1, w0), fma(c11, x1, w1), fma(c12, x1, w2), fma(c13, x1, w3);
      fma(c20, x2, w0), fma(c21, x2, w1), fma(c22, x2, w2), fma(c23, x2, w3);
      fma(c30, x3, w0), fma(c31, x3, w1), fma(c32, x3, w2), fma(c33, x3, w3);
    }
    acc[0] = c00, acc[1] = c01, acc[2] = c02, acc[3] = c03;
    acc[4] = c10, acc[5] = c11, acc[6] = c12, acc[7] = c13;
    acc[8] = c20, acc[9] = c21, acc[10] = c22, acc[11] = c23;
    acc[12] = c30, acc[13] = c31, acc[14] = c32, acc[15] = c33;
  }
  static void rows2(const float* a0, std::int64_t k, const float* w, std::int64_t ws,
                    std::int64_t G, Vec* acc) {
    const float* a1 = a0 + k;
    Vec c00 = acc[0], c01 = acc[1], c02 = acc[2], c03 = acc[3];
    Vec c10 = acc[CN], c11 = acc[CN + 1], c12 = acc[CN + 2], c13 = acc[CN + 3];
    for (std::int64_t s = 0; s < G; s += W) {
      Vec x0, x1, w0, w1, w2, w3;  // unaligned loads through memcpy (no Vec in a signature)
      std::memcpy(&x0, a0 + s, sizeof(Vec));
      std::memcpy(&x1, a1 + s, sizeof(Vec));
      std::memcpy(&w0, w + s, sizeof(Vec));
      std::memcpy(&w1, w + ws + s, sizeof(Vec));
      std::memcpy(&w2, w + 2 * ws + s, sizeof(Vec));
      std::memcpy(&w3, w + 3 * ws + s, sizeof(Vec));
      fma(c00, x0, w0), fma(c01, x0, w1), fma(c02, x0, w2), fma(c03, x0, w3);
      fma(c10, x1, w0), fma(c11, x1, w1), fma(c12, x1, w2), fma(c13, x1, w3);
    }
    acc[0] = c00, acc[1] = c01, acc[2] = c02, acc[3] = c03;
    acc[CN] = c10, acc[CN + 1] = c11, acc[CN + 2] = c12, acc[CN + 3] = c13;
  }

  // The column's bytes kAhead further on (past its end: the next column's, also streamed next):
  // four columns advance together by one group at a time, too slowly and too many streams for
  // the hardware prefetcher alone (perf: half the kernel's samples waited on these loads).
  static constexpr std::int64_t kAhead = 1024;
  static void prefetch(const void* q, std::int64_t bytes) {
    for (std::int64_t b = 0; b < bytes; b += 64)
      __builtin_prefetch(static_cast<const char*>(q) + kAhead + b);
  }

  // h bytes of e2m1 pairs as (low nibbles..., high nibbles...) times s: a lookup of the eight
  // magnitudes in a register (vpermps) and the sign bit moved into place, 16 or 8 lanes at a
  // time; a table lookup per element would be a gather. The values are exactly the table's.
  static void dequant_e2m1(const std::uint8_t* q, std::int64_t h, float s, float* out) {
    std::int64_t t = 0;
#if defined(__AVX512F__)
    const __m512 mag = _mm512_setr_ps(0, 0.5f, 1, 1.5f, 2, 3, 4, 6, 0, 0.5f, 1, 1.5f, 2, 3, 4, 6);
    const __m512 sv = _mm512_set1_ps(s);
    const __mmask16 all = 0xFFFF;  // the maskz forms: GCC 12 warns on the others' undefined
    for (; t + 16 <= h; t += 16) {
      const __m512i u =
          _mm512_maskz_cvtepu8_epi32(all, _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + t)));
      for (int part = 0; part < 2; ++part) {
        const __m512i c =
            part ? _mm512_maskz_srli_epi32(all, u, 4) : _mm512_and_si512(u, _mm512_set1_epi32(0xF));
        const __m512i sign =
            _mm512_maskz_slli_epi32(all, _mm512_and_si512(c, _mm512_set1_epi32(8)), 28);
        const __m512 v = _mm512_castsi512_ps(
            _mm512_or_si512(_mm512_castps_si512(_mm512_maskz_permutexvar_ps(all, c, mag)), sign));
        _mm512_storeu_ps(out + part * h + t, _mm512_mul_ps(v, sv));
      }
    }
#elif defined(__AVX2__)
    const __m256 mag = _mm256_setr_ps(0, 0.5f, 1, 1.5f, 2, 3, 4, 6);
    const __m256 sv = _mm256_set1_ps(s);
    for (; t + 8 <= h; t += 8) {
      const __m256i u =
          _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(q + t)));
      for (int part = 0; part < 2; ++part) {
        const __m256i c =
            part ? _mm256_srli_epi32(u, 4) : _mm256_and_si256(u, _mm256_set1_epi32(0xF));
        const __m256i sign = _mm256_slli_epi32(_mm256_and_si256(c, _mm256_set1_epi32(8)), 28);
        const __m256 v = _mm256_castsi256_ps(_mm256_or_si256(
            _mm256_castps_si256(_mm256_permutevar8x32_ps(mag, c)), sign));  // uses c & 7
        _mm256_storeu_ps(out + part * h + t, _mm256_mul_ps(v, sv));
      }
    }
#endif
    for (; t < h; ++t) {
      out[t] = kE2m1Values[q[t] & 0xF] * s;
      out[h + t] = kE2m1Values[q[t] >> 4] * s;
    }
  }

  // Column j's weights [p0, p0 + G) as (q - z) * s into out (i4: even K, then odd K).
  static void dequant(const Problem<float>& p, std::int64_t j, std::int64_t p0, std::int64_t G,
                      float* out) {
    const core::KScale& ks = p.bt.scale;
    const float s = ks.base ? ks.at(j, p0) : 1.0f, z = ks.zero_at(j, p0);
    const std::int64_t first = j * p.bt.s.row + p0;  // element index of (j, p0)
    if constexpr (Kind == Weights::E2M1) {
      const auto* q = static_cast<const std::uint8_t*>(p.bt.base) + first / 2;
      prefetch(reinterpret_cast<const std::int8_t*>(q), G / 2);
      dequant_e2m1(q, G / 2, s, out);
    } else if constexpr (I4) {
      const auto* q = static_cast<const std::int8_t*>(p.bt.base) + first / 2;
      const std::int64_t h = G / 2;
      prefetch(q, h);
#pragma omp simd
      for (std::int64_t t = 0; t < h; ++t) {
        const std::int8_t lo = static_cast<std::int8_t>(q[t] << 4) >> 4, hi = q[t] >> 4;
        out[t] = (float(lo) - z) * s;
        out[h + t] = (float(hi) - z) * s;
      }
    } else if constexpr (Kind == Weights::F32) {  // columns past N's edge only
      std::memcpy(out, static_cast<const float*>(p.bt.base) + first, sizeof(float) * G);
    } else {
      const auto* q = static_cast<const std::int8_t*>(p.bt.base) + first;
      prefetch(q, G);
#pragma omp simd
      for (std::int64_t t = 0; t < G; ++t) out[t] = (float(q[t]) - z) * s;
    }
  }

  // A (M, K) as f32 rows, each group's K reordered as the weights are (i4).
  static void convert_a(const Problem<float>& p, std::int64_t G, float* ab) {
    auto as = [&]<PackConvert C>() {
      for (std::int64_t i = 0; i < p.m; ++i)
        for (std::int64_t q = 0; q < p.k; ++q) {
          std::int64_t at = q;
          if constexpr (I4) {
            const std::int64_t g0 = q / G * G, t = q - g0;
            at = g0 + (t % 2) * (G / 2) + t / 2;
          }
          ab[i * p.k + at] = load_converted<float, C>(p.a, i, q);
        }
    };
    switch (p.a.convert) {
      case PackConvert::Bf16ToF32:
        return as.template operator()<PackConvert::Bf16ToF32>();
      case PackConvert::F16ToF32:
        return as.template operator()<PackConvert::F16ToF32>();
      default:
        return as.template operator()<PackConvert::Copy>();
    }
  }

  // D(i, j) from its sum, as epilogue_tile_as computes it.
  static void finish(const Problem<float>& p, std::int64_t i, std::int64_t j, float acc) {
    float a = p.alpha;
    if (p.ep.srow) a *= p.ep.srow[i];
    if (p.ep.scol) a *= p.ep.scol[j];
    float v = a * acc;
    if (p.beta != 0.0f) v += p.beta * load_stored<float>(p.c_as, p.c, i * p.sc.row + j * p.sc.col);
    if (p.ep.bias) v += load_stored<float>(p.ep.bias_as, p.ep.bias, p.ep.bias_rows ? i : j);
    v = activate_as<float>(p.ep.act, v);
    store_stored<float>(p.d_as, p.d, i * p.sd.row + j * p.sd.col, v);
  }
};

// Every batch entry through WeightStream (alpha == 0 or K == 0: D = act(beta C + bias)).
inline void run_weight_stream(const GemmDesc& desc, const GemmArgs& args, const Options& opt) {
  const std::int64_t G = weight_stream_group(desc);
  const bool can_fork = omp_get_active_level() < omp_get_max_active_levels() && !omp_get_dynamic();
  // A streaming flop moves a quarter to half a byte of W: weigh it as the GEMV does.
  const double work = 2.0 * desc.m * desc.n * desc.k * 30.0;
  const int nt = can_fork ? std::min(choose_threads(opt.threads, work), omp_get_thread_limit()) : 1;
  for (std::int64_t l = 0; l < desc.batch; ++l) {
    const Problem<float> p = make_problem<float>(desc, args, l);
    if (args.alpha == 0.0 || desc.k == 0)
      scale_only(p);
    else if (desc.b.dtype == DType::E2M1)
      WeightStream<Weights::E2M1>::run(p, G, nt);
    else if (desc.b.dtype == DType::I4)
      WeightStream<Weights::I4>::run(p, G, nt);
    else if (desc.b.dtype == DType::F32)
      WeightStream<Weights::F32>::run(p, G, nt);
    else
      WeightStream<Weights::I8>::run(p, G, nt);
  }
}

}  // namespace GEMMKIT_CPU_ISA
}  // namespace gemmkit::cpu
