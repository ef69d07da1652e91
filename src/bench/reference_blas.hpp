// The fp64 reference at real sizes: the same results as core::reference_visit (the semantic
// spec, which stays as this one's oracle), computed by widening each operand exactly to fp64
// and multiplying with OpenBLAS's blocked, multi-threaded cblas_dgemm.
//
// Why OpenBLAS and not gemmkit's own CPU dgemm: an oracle must not share code with what it
// judges. gemmkit's dgemm path shares the packing, the driver and the scheduler with every CPU
// candidate, so a bug there could hide itself; OpenBLAS is an independent implementation that
// the bench already links (and netlib BLAS checks it in tests/cpu/netlib_grid).
//
// Semantics, exactly those of core::reference_visit_epilogue (reference_visit plus the epilogue):
//   - M == 0, N == 0 or batch == 0: empty result;
//   - tensor / row / column scales, the bias (EpilogueDesc::bias, read only when set), the
//     activation and s_d applied to each element in fp64 after the sum, in that order; the
//     gauge through the activation's slope bound, |bias| included;
//   - beta == 0: C is never read; alpha == 0 or K == 0: A and B are never read, D = beta * C
//     (the product of alpha and a zero sum is never formed, so -0 from beta * C survives);
//   - every input value is widened exactly (core::load_element), products summed in fp64;
//   - NaN and Inf propagate as IEEE arithmetic says: every D(i, j) whose row of op(A) or column
//     of op(B) holds a NaN or an Inf is recomputed by the sequential loop (p = 0 .. K-1), so
//     Inf * 0 = NaN and Inf - Inf = NaN whatever the BLAS does with zeros.
// Accumulation order: for finite inputs, cblas_dgemm's own blocked order (K split into KC
// panels, each summed by an FMA microkernel over register blocks) replaces the sequential
// p = 0 .. K-1 sum. Both are fp64 sums of the same exact products; they differ by at most
// K * 2^-53 * gauge (in practice about sqrt(K) * 2^-53 * gauge), below 1e-12 of the gauge for
// K < 2^40, far under the bound of every type the testbed judges (f32's unit roundoff is 2^-24;
// f64 candidates get the (8 + sqrt(K)) * 2^-53 * gauge term, which covers the difference).
// gauge(i, j) = |alpha| * (|op(A)| |op(B)|)(i, j) + |beta * c(i, j)| comes from a second dgemm
// on the absolute values; it is a sum of non-negative terms, so its order changes it by a
// relative K * 2^-53 at most.
// Problems whose dimensions do not fit OpenBLAS's integer (blasint), and small ones (below),
// take the sequential loop.
#pragma once
#include <cstdint>
#include <vector>

#include "gemmkit/gemm.hpp"

namespace gemmkit::bench {

// Reference values of D before rounding, and their gauges, for every batch: element (l, i, j)
// at index (l * n + j) * m + i (column-major M x N matrices, one batch after another).
struct ReferenceMatrix {
  std::int64_t m = 0, n = 0, batch = 0;
  std::vector<double> value;
  std::vector<double> gauge;  // empty unless asked for
  std::size_t index(std::int64_t l, std::int64_t i, std::int64_t j) const {
    return static_cast<std::size_t>((l * n + j) * m + i);
  }
};

// Expects a validated descriptor with defaulted lds and host pointers in `args` (D unused).
// Below `blas_min_flop` (2MNK; 2e7 is about 215^3) every element takes the sequential loop on
// the widened operands (the spec's order, so the oracle's bits): as fast there as a BLAS call,
// and OpenBLAS's thread pool is left alone (its workers spin after a threaded call and slow the
// candidate that runs next). Tests pass 0 to send residue shapes through OpenBLAS. OpenBLAS's
// thread count is never changed here: setting it to 1 for small calls and back made every later
// cblas call of the process take ~20 ms on the 2-core VM.
ReferenceMatrix reference_dgemm(const GemmDesc& d, const GemmArgs& args, bool want_gauge,
                                double blas_min_flop = 2e7);

// The same through core::reference_visit_epilogue, element by element (the oracle; slow).
ReferenceMatrix reference_sequential(const GemmDesc& d, const GemmArgs& args, bool want_gauge);

}  // namespace gemmkit::bench
