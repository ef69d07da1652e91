// The entry points of one ISA file, written once: included by gemm_avx512.cpp,
// gemm_avx2.cpp and gemm_portable.cpp after they define the kernel types Sgemm, SgemmSmallM,
// Dgemm, DgemmSmallM, Igemm, IgemmVnni and the constants kIsa, kHasIgemmVnni. Defines
// `kIsaKernels`.
#pragma once
#include "cpu/gemm_driver.hpp"
#include "cpu/kernels.hpp"
#include "cpu/split_policy.hpp"
#include "cpu/tile_choice.hpp"
#include "cpu/weight_stream.hpp"

namespace gemmkit::cpu {
inline namespace GEMMKIT_CPU_ISA {

inline Status sgemm_entry(const GemmDesc& d, const GemmArgs& a, const Options& o) {
  // Both choices below look at M: under batch invariance neither is made (the packed Sgemm).
  // Weight-only decode shapes: integer weights streamed once (weight_stream.hpp); with SIMD also
  // f32 M = 2..16 with a K-contiguous B, whose packed path would transpose all of B (2-vCPU
  // Xeon, AVX-512, 16 / 8 / 4 x 4096 x 4096 on 1 thread: 0.79 / 0.94 / 0.94x OpenBLAS packed,
  // 1.31 / 1.62 / 1.74x streamed; 2 threads 1.13 / 1.50 / 1.43x, 1.85 / 2.72 / 2.78x).
  if (!o.batch_invariant &&
      (weight_stream_applies(d) || (kIsa != Isa::Portable && f32_stream_applies(d))))
    return run_weight_stream(d, a, o), Status{};
  // A short side that the small-M tile pads less takes it (tile_choice.hpp).
  if (small_m_tile_applies(d, o.batch_invariant, SgemmSmallM::kMR, SgemmSmallM::kNR, Sgemm::kMR))
    run_batches<SgemmSmallM>(d, a, o, Variant::Packed);
  else
    run_batches<Sgemm>(d, a, o, Variant::Packed);
  return {};
}
inline Status dgemm_entry(const GemmDesc& d, const GemmArgs& a, const Options& o) {
  if (small_m_tile_applies(d, o.batch_invariant, DgemmSmallM::kMR, DgemmSmallM::kNR, Dgemm::kMR))
    run_batches<DgemmSmallM>(d, a, o, Variant::Packed);
  else
    run_batches<Dgemm>(d, a, o, Variant::Packed);
  return {};
}
inline Status igemm_entry(const GemmDesc& d, const GemmArgs& a, const Options& o) {
  if (kHasIgemmVnni && cpu_info().avx512_vnni)
    run_batches<IgemmVnni>(d, a, o, Variant::Packed);
  else
    run_batches<Igemm>(d, a, o, Variant::Packed);
  return {};
}
inline Status gemv_entry(const GemmDesc& d, const GemmArgs& a, const Options& o) {
  if (d.d.dtype == DType::F64)
    run_batches<Dgemm>(d, a, o, Variant::Gemv);
  else
    run_batches<Sgemm>(d, a, o, Variant::Gemv);
  return {};
}
inline Status splitk_entry(const GemmDesc& d, const GemmArgs& a, const Options& o, int splits) {
  if (d.d.dtype == DType::F64) {
    if (splits <= 0) splits = std::max(2, splitk_default_splits(d, Dgemm::kMR, Dgemm::kNR));
    run_batches<Dgemm>(d, a, o, Variant::SplitK, splits);
  } else {
    if (splits <= 0) splits = std::max(2, splitk_default_splits(d, Sgemm::kMR, Sgemm::kNR));
    run_batches<Sgemm>(d, a, o, Variant::SplitK, splits);
  }
  return {};
}

constexpr IsaKernels kIsaKernels{
    .isa = kIsa,
    .sgemm_tile = {Sgemm::kMR, Sgemm::kNR},
    .dgemm_tile = {Dgemm::kMR, Dgemm::kNR},
    .igemm_tile = {Igemm::kMR, Igemm::kNR},
    .sgemm = sgemm_entry,
    .dgemm = dgemm_entry,
    .igemm = igemm_entry,
    .gemv = gemv_entry,
    .splitk = splitk_entry,
};

}  // namespace GEMMKIT_CPU_ISA
}  // namespace gemmkit::cpu
