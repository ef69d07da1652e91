// The problem ledger: FLOPs, minimum DRAM bytes, arithmetic intensity, the
// machine's ridge point, compute- or memory-bound, the roofline floor time.
#pragma once
#include <cstdint>
#include <string>

#include "gemmkit/gemm.hpp"
#include "ledger/machine.hpp"

namespace gemmkit::ledger {

// Bytes of one element: dtype_bits / 8 (int4 = 0.5).
double element_bytes(DType t) noexcept;

// Scale factors of scaled low-precision formats, counted in the minimum traffic.
enum class ScaleLayout : std::uint8_t {
  None,
  Tensor,      // one fp32 scale for A and one for B
  RowCol,      // fp32 per row of A and per column of B
  Block1x128,  // DeepSeek style: A 1x128 along K, B 128x128 blocks, fp32
  Mx32,        // MX: one e8m0 byte per 32 K-elements of each row of A / column of B
};

struct ProblemLedger {
  double flops = 0;  // 2*M*N*K*batch
  double a_bytes = 0, b_bytes = 0, c_bytes = 0, d_bytes = 0, scale_bytes = 0;
  double min_bytes = 0;             // A + B + D (+ C when beta != 0) + scales, each touched once
  double arithmetic_intensity = 0;  // flops / min_bytes, FLOP/B
  PeakClass peak_class = PeakClass::FP32;       // the class the problem asks for
  PeakClass peak_class_used = PeakClass::FP32;  // the class the machine offers for it
  double peak_flops = 0;                        // FLOP/s
  double dram_bytes_per_s = 0;
  double ridge_point = 0;  // peak / bandwidth, FLOP/B
  bool compute_bound = false;
  double t_compute_s = 0;  // flops / peak
  double t_memory_s = 0;   // min_bytes / bandwidth
  double t_floor_s = 0;    // max of the two: no implementation on this machine is faster
  const char* bound() const noexcept { return compute_bound ? "compute" : "memory"; }
};

ProblemLedger analyze(const GemmDesc& desc, double beta, const Machine& machine,
                      ScaleLayout scales = ScaleLayout::None);

// For squares M = N = K with one element size b everywhere (beta = 0): AI = 2M / (3b), and the
// side at which AI reaches the ridge point: M* = 3 b ridge / 2.
double square_intensity(std::int64_t m, double b) noexcept;
double square_crossover(double ridge, double b) noexcept;

}  // namespace gemmkit::ledger
