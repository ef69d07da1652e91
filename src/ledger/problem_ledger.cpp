// The problem ledger: what the problem costs, independent of how it is tiled.
#include "ledger/problem_ledger.hpp"

#include <algorithm>

namespace gemmkit::ledger {

double element_bytes(DType t) noexcept { return dtype_bits(t) / 8.0; }

namespace {

double ceil_div(std::int64_t a, std::int64_t b) { return static_cast<double>((a + b - 1) / b); }

double scale_bytes_of(const GemmDesc& d, ScaleLayout s) {
  const double m = static_cast<double>(d.m), n = static_cast<double>(d.n);
  switch (s) {
    case ScaleLayout::None:
      return 0;
    case ScaleLayout::Tensor:
      return 2 * 4;
    case ScaleLayout::RowCol:
      return 4 * (m + n);
    case ScaleLayout::Block1x128:
      return 4 * (m * ceil_div(d.k, 128) + ceil_div(d.k, 128) * ceil_div(d.n, 128));
    case ScaleLayout::Mx32:
      return 1 * (m + n) * ceil_div(d.k, 32);
  }
  return 0;
}

}  // namespace

ProblemLedger analyze(const GemmDesc& d, double beta, const Machine& machine, ScaleLayout scales) {
  ProblemLedger r;
  const double m = static_cast<double>(d.m), n = static_cast<double>(d.n),
               k = static_cast<double>(d.k),
               batch = static_cast<double>(std::max<std::int64_t>(1, d.batch));
  r.flops = 2.0 * m * n * k * batch;
  // Broadcast operands (batch_stride 0 with batch > 1) are read once, not per batch entry.
  auto per_batch = [&](const MatrixDesc& md) {
    return (md.batch_stride == 0 && batch > 1) ? 1.0 : batch;
  };
  r.a_bytes = element_bytes(d.a.dtype) * m * k * per_batch(d.a);
  r.b_bytes = element_bytes(d.b.dtype) * k * n * per_batch(d.b);
  r.c_bytes = beta != 0.0 ? element_bytes(d.c.dtype) * m * n * per_batch(d.c) : 0.0;
  r.d_bytes = element_bytes(d.d.dtype) * m * n * batch;
  r.scale_bytes = scale_bytes_of(d, scales) * batch;
  r.min_bytes = r.a_bytes + r.b_bytes + r.c_bytes + r.d_bytes + r.scale_bytes;
  r.arithmetic_intensity = r.min_bytes > 0 ? r.flops / r.min_bytes : 0;
  r.peak_class = peak_class_for(d.a.dtype, d.b.dtype);
  r.peak_flops = peak_flops(machine, r.peak_class, &r.peak_class_used);
  r.dram_bytes_per_s = machine.dram_bytes_per_s;
  r.ridge_point = r.dram_bytes_per_s > 0 ? r.peak_flops / r.dram_bytes_per_s : 0;
  r.compute_bound = r.arithmetic_intensity >= r.ridge_point;
  r.t_compute_s = r.peak_flops > 0 ? r.flops / r.peak_flops : 0;
  r.t_memory_s = r.dram_bytes_per_s > 0 ? r.min_bytes / r.dram_bytes_per_s : 0;
  r.t_floor_s = std::max(r.t_compute_s, r.t_memory_s);
  return r;
}

double square_intensity(std::int64_t m, double b) noexcept {
  return 2.0 * static_cast<double>(m) / (3.0 * b);
}

double square_crossover(double ridge, double b) noexcept { return 3.0 * b * ridge / 2.0; }

}  // namespace gemmkit::ledger
