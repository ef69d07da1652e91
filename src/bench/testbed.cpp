#include "bench/testbed.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

#include "bench/device_mem.hpp"
#include "bench/reference_blas.hpp"
#include "bench/reference_device.hpp"
#include "core/element.hpp"
#include "core/epilogue_ref.hpp"
#include "core/reference.hpp"
#include "core/validate.hpp"
#include "core/view.hpp"
#include "gemmkit/quantize.hpp"

namespace gemmkit::bench {

std::string_view disposition_name(Disposition d) noexcept {
  switch (d) {
    case Disposition::Passed: return "Passed";
    case Disposition::Incorrect: return "Incorrect";
    case Disposition::NotVerified: return "NotVerified";
    case Disposition::Failed: return "Failed";
  }
  return "?";
}

std::size_t operand_bytes(const MatrixDesc& m, Extent e, std::int64_t batch) noexcept {
  std::int64_t elems = core::footprint(m.layout, e, m.ld);
  if (elems == 0 || batch == 0) return 0;
  elems += (batch - 1) * m.batch_stride;
  return static_cast<std::size_t>((elems * dtype_bits(m.dtype) + 7) / 8);
}

namespace {

// Gives back draws of std::mt19937_64 taken earlier, one per call.
struct ReplayEngine {
  using result_type = std::mt19937_64::result_type;
  static constexpr result_type min() { return std::mt19937_64::min(); }
  static constexpr result_type max() { return std::mt19937_64::max(); }
  result_type value;
  result_type operator()() { return value; }
};

}  // namespace

void fill_uniform(DType t, void* p, std::int64_t count, std::uint64_t seed, double lo,
                  double hi) {
  std::mt19937_64 rng(seed);
  if (core::is_float_type(t)) {
    // The engine runs in order; mapping its draws to U[lo, hi] and rounding them to the dtype
    // runs in parallel. uniform_real_distribution<double> takes exactly one draw of a 64-bit
    // engine per value and keeps no state between calls, so replaying the draws gives the
    // values a sequential fill gives, bit for bit (the float types are 8 bits or wider, or
    // e2m1's 4 in chunks of an even count from even indices: no two threads write one byte).
    // Dynamic blocks: on a shared machine a thread that is not scheduled leaves its work to the
    // others instead of holding the region up.
    constexpr std::int64_t kChunk = std::int64_t{1} << 22;  // 32 MiB of draws: few regions
    std::vector<std::uint64_t> draws(static_cast<std::size_t>(std::min(count, kChunk)));
    for (std::int64_t base = 0; base < count; base += kChunk) {
      const std::int64_t len = std::min(kChunk, count - base);
      for (std::int64_t i = 0; i < len; ++i) draws[static_cast<std::size_t>(i)] = rng();
#pragma omp parallel for schedule(dynamic, 65536) if (len >= 8192)
      for (std::int64_t i = 0; i < len; ++i) {
        ReplayEngine e{draws[static_cast<std::size_t>(i)]};
        std::uniform_real_distribution<double> u(lo, hi);
        core::store_element(t, p, base + i, u(e), true);
      }
    }
  } else {
    std::uniform_int_distribution<int> u(static_cast<int>(std::ceil(lo)),
                                         static_cast<int>(std::floor(hi)));
    for (std::int64_t i = 0; i < count; ++i) core::store_element(t, p, i, u(rng));
  }
}

double unit_roundoff(DType t) {
  switch (t) {
    case DType::F64: return std::ldexp(1.0, -53);
    case DType::F32: return std::ldexp(1.0, -24);
    case DType::F16: return std::ldexp(1.0, -11);
    case DType::BF16: return std::ldexp(1.0, -8);
    case DType::E4M3: return std::ldexp(1.0, -4);
    case DType::E5M2: return std::ldexp(1.0, -3);
    case DType::E2M1: return std::ldexp(1.0, -2);
    default: return 0.0;
  }
}

namespace {

std::int64_t elements_of(const MatrixDesc& m, Extent e, std::int64_t batch) {
  std::int64_t elems = core::footprint(m.layout, e, m.ld);
  if (elems == 0 || batch == 0) return 0;
  return elems + (batch - 1) * m.batch_stride;
}

std::vector<std::uint8_t> make_buffer(const MatrixDesc& m, Extent e, std::int64_t batch) {
  return std::vector<std::uint8_t>(operand_bytes(m, e, batch) + HostCase::kGuardBytes,
                                   HostCase::kSentinel);
}

// True when the operand's elements over all batches are one gapless run (ld packed, batch
// stride one matrix): then every element of [0, elements_of) is logical.
bool is_packed(const MatrixDesc& m, Extent e, std::int64_t batch) {
  const std::int64_t one = core::footprint(m.layout, e, m.ld);
  return m.ld == core::min_ld(m.layout, e) && one == e.rows * e.cols &&
         (batch <= 1 || m.batch_stride == one);
}

// Fills only the logical elements of every batch, leaving the padding at the sentinel.
void fill_logical(const MatrixDesc& m, Extent e, std::int64_t batch, std::uint8_t* buf,
                  std::uint64_t seed, double lo = -1.0, double hi = 1.0) {
  const std::int64_t n = elements_of(m, e, batch);
  if (n == 0) return;
  // Packed: every element is logical; fill in place (the same values as through tmp).
  if (is_packed(m, e, batch)) {
    fill_uniform(m.dtype, buf, n, seed, lo, hi);
    return;
  }
  std::vector<std::uint8_t> tmp((n * dtype_bits(m.dtype) + 7) / 8 + 1);
  fill_uniform(m.dtype, tmp.data(), n, seed, lo, hi);
  const core::Strides s = core::stored_strides(m.layout, m.ld);
  for (std::int64_t l = 0; l < batch; ++l)
    for (std::int64_t r = 0; r < e.rows; ++r)
      for (std::int64_t c = 0; c < e.cols; ++c) {
        const std::int64_t idx = l * m.batch_stride + r * s.row + c * s.col;
        core::store_element(m.dtype, buf, idx, core::load_element(m.dtype, tmp.data(), idx));
      }
}

bool same_bits(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }

// Half the smallest subnormal of a floating output (0 for f64 and the integers): the absolute
// error of rounding into its subnormal range, which the relative u_out does not cover.
double half_min_subnormal(DType t) {
  switch (t) {
    case DType::F32: return std::ldexp(1.0, -150);
    case DType::F16: return std::ldexp(1.0, -25);
    case DType::BF16: return std::ldexp(1.0, -134);
    case DType::E4M3: return std::ldexp(1.0, -10);
    case DType::E5M2: return std::ldexp(1.0, -17);
    default: return 0.0;
  }
}

bool is_fp8(DType t) { return t == DType::E4M3 || t == DType::E5M2; }

// True when D is more than alpha * op(A) op(B) + beta * C: scales, a bias, an activation or the
// output's scale (the amax does not change D). The probe check and the GPU reference kernel
// compute only the plain form.
bool epilogue_changes_d(const GemmDesc& d) {
  const EpilogueDesc& e = d.epilogue;
  return d.scale_a.mode != ScaleMode::None || d.scale_b.mode != ScaleMode::None || e.scale_d ||
         e.bias != BiasMode::None || e.act != Activation::None;
}
bool is_fp8_or_fp4(DType t) { return is_fp8(t) || t == DType::E2M1; }
bool is_int(DType t) { return t == DType::I8 || t == DType::I4; }

std::string describe(std::int64_t l, std::int64_t i, std::int64_t j, double got, double want,
                     double bound) {
  std::ostringstream os;
  os.precision(9);
  os << "D(" << i << "," << j << ") batch " << l << ": got " << got << ", want " << want
     << " (bound " << bound << ")";
  return os.str();
}

}  // namespace

HostCase HostCase::make(const GemmDesc& desc, double alpha, double beta, std::uint64_t seed) {
  HostCase hc;
  hc.desc = with_default_lds(desc);
  hc.alpha = alpha;
  hc.beta = beta;
  const GemmDesc& d = hc.desc;
  const std::int64_t batch = d.batch;
  hc.a = make_buffer(d.a, stored_extent_a(d), batch);
  hc.b = make_buffer(d.b, stored_extent_b(d), batch);
  hc.c = make_buffer(d.c, stored_extent_cd(d), batch);
  hc.d = make_buffer(d.d, stored_extent_cd(d), batch);
  fill_logical(d.a, stored_extent_a(d), batch, hc.a.data(), seed * 4 + 1);
  fill_logical(d.b, stored_extent_b(d), batch, hc.b.data(), seed * 4 + 2);
  // beta == 0: C is never read, so it keeps the sentinel (a third of the fill of a large
  // case); a kernel that reads it anyway still changes nothing it may not, and any use of its
  // values shows (0x5A5A... is about 1.5e16 as f32 or bf16).
  if (beta != 0.0) fill_logical(d.c, stored_extent_cd(d), batch, hc.c.data(), seed * 4 + 3);
  const bool weight_only = !is_int(d.a.dtype) && is_int(d.b.dtype);
  if (weight_only) {  // integer weights over their whole range
    const double hi = d.b.dtype == DType::I4 ? 7.0 : 127.0;
    fill_logical(d.b, stored_extent_b(d), batch, hc.b.data(), seed * 4 + 2,
                 d.b.dtype == DType::I4 ? -8.0 : -hi, hi);
  }
  for (const bool is_a : {true, false}) {
    const ScaleDesc& sd = is_a ? d.scale_a : d.scale_b;
    if (sd.mode == ScaleMode::None) continue;
    const Extent e = is_a ? scale_extent_a(d) : scale_extent_b(d);
    const bool grid = core::varies_along_k(sd.mode);
    const std::int64_t count =
        std::max<std::int64_t>(1, grid ? core::footprint(sd.layout, e, sd.ld) : e.rows * e.cols);
    std::vector<std::uint8_t>& s = is_a ? hc.scale_a : hc.scale_b;
    const std::size_t bytes = static_cast<std::size_t>(count * dtype_bits(sd.dtype) / 8);
    s.assign(bytes, 0);
    const MatrixDesc& m = is_a ? d.a : d.b;
    const std::uint64_t sseed = seed * 4 + (is_a ? 5 : 6);
    if (!is_a && sd.mode == ScaleMode::Group && d.batch == 1) {
      // Integer weights from f32 values, with group scales and zero points (quantize_weights).
      const Extent x = stored_extent_b(d);
      std::vector<float> v(static_cast<std::size_t>(core::footprint(m.layout, x, m.ld)));
      fill_uniform(DType::F32, v.data(), static_cast<std::int64_t>(v.size()), sseed);
      if (sd.zero_points) hc.zero_b.assign(bytes, 0);
      (void)quantize_weights(d, {DType::F32, m.layout, m.ld, 0}, v.data(), hc.b.data(), s.data(),
                             sd.zero_points ? hc.zero_b.data() : nullptr);
      continue;
    }
    if (is_fp8_or_fp4(m.dtype) && d.batch == 1) {
      // The fp8 / fp4 operand from f32 values, its scales from the amax (quantize_fp8 / _fp4).
      const Extent x = is_a ? stored_extent_a(d) : stored_extent_b(d);
      const MatrixDesc src{DType::F32, m.layout, m.ld, 0};
      std::vector<float> v(static_cast<std::size_t>(core::footprint(m.layout, x, m.ld)));
      fill_uniform(DType::F32, v.data(), static_cast<std::int64_t>(v.size()), sseed);
      std::vector<std::uint8_t>& buf = is_a ? hc.a : hc.b;
      (void)(m.dtype == DType::E2M1 ? quantize_fp4 : quantize_fp8)(d, is_a ? Arg::A : Arg::B, src,
                                                                   v.data(), buf.data(), s.data());
    } else {
      const double k = sd.mode == ScaleMode::Group ? 1.0 / 64 : 1.0;
      fill_uniform(sd.dtype, s.data(), count, sseed, 0.5 * k, 2.0 * k);
    }
    if (!is_a && sd.mode == ScaleMode::Group && sd.zero_points) {
      hc.zero_b.assign(bytes, 0);
      fill_uniform(DType::I8, hc.zero_b.data(), count, sseed + 1, -3.0, 3.0);  // integers
      for (std::int64_t q = count - 1; q >= 0; --q)  // widened in place, from the end
        core::store_element(sd.dtype, hc.zero_b.data(), q,
                            double(reinterpret_cast<const std::int8_t*>(hc.zero_b.data())[q]));
    }
  }
  if (d.epilogue.scale_d) fill_uniform(DType::F32, &hc.out_scale, 1, seed * 4 + 7, 0.5, 2.0);
  if (d.epilogue.bias != BiasMode::None) {
    const std::int64_t len = d.epilogue.bias == BiasMode::Row ? d.m : d.n;
    const MatrixDesc bias{.dtype = d.epilogue.bias_dtype, .layout = Layout::ColMajor, .ld = len};
    hc.bias = make_buffer(bias, {len, 1}, 1);
    fill_uniform(bias.dtype, hc.bias.data(), len, seed * 4 + 8);
  }
  return hc;
}

const void* HostCase::scale_ptr(bool is_a) const {
  const ScaleMode m = is_a ? desc.scale_a.mode : desc.scale_b.mode;
  return m == ScaleMode::None ? nullptr : (is_a ? scale_a : scale_b).data();
}

const void* HostCase::zero_ptr() const {
  return desc.scale_b.mode == ScaleMode::Group && desc.scale_b.zero_points ? zero_b.data()
                                                                           : nullptr;
}

const void* HostCase::bias_ptr() const {
  return desc.epilogue.bias == BiasMode::None ? nullptr : bias.data();
}

GemmArgs HostCase::inputs() const {
  GemmArgs g{a.data(), b.data(), c.data(), nullptr, alpha, beta};
  g.bias = bias_ptr();
  g.scale_a = scale_ptr(true), g.scale_b = scale_ptr(false), g.zero_b = zero_ptr();
  if (desc.epilogue.scale_d) g.scale_d = &out_scale;
  return g;
}

GemmArgs HostCase::args() {
  GemmArgs g = inputs();
  g.d = d.data();
  if (desc.epilogue.amax_d) g.amax_d = &amax;
  return g;
}

GemmArgs HostCase::args_in_place() {
  GemmArgs g = args();
  g.d = c.data();
  return g;
}

namespace {

// One element of D against the reference value `want` (before rounding) and its gauge.
struct ElementCheck {
  bool exact;
  DType out;
  double u_out, u_acc, growth;
  double tiny_out;  // half the output's smallest subnormal: rounding there is absolute
  double fp8_max;   // the largest finite value of an fp8 D (0 otherwise)

  ElementCheck(const GemmDesc& d)
      : exact(d.d.dtype == DType::I32 ||
              (!core::is_float_type(d.a.dtype) && !core::is_float_type(d.d.dtype))),
        out(d.d.dtype),
        u_out(unit_roundoff(d.d.dtype)),
        u_acc(unit_roundoff(d.compute)),
        growth(8.0 + std::sqrt(static_cast<double>(d.k))),
        tiny_out(half_min_subnormal(d.d.dtype)),
        fp8_max(d.d.dtype == DType::E4M3   ? 448.0
                : d.d.dtype == DType::E5M2 ? 57344.0
                                           : 0.0) {}

  void operator()(Compare& r, std::int64_t l, std::int64_t i, std::int64_t j, double want,
                  double gauge, double got) const {
    double w = want;
    if (fp8_max > 0 && !std::isnan(w) && std::fabs(w) > fp8_max)
      w = std::copysign(fp8_max, w);  // an fp8 D saturates (gemm.hpp), Inf included
    if (exact) {  // the reference rounded to the output type
      std::uint8_t tmp[8] = {};
      core::store_element(out, tmp, 0, want);
      w = core::load_element(out, tmp, 0);
    }
    ++r.checked;
    double bound = 0.0;
    bool ok;
    if (std::isnan(w)) {
      ok = std::isnan(got);
    } else if (std::isinf(w)) {
      ok = same_bits(w, got);
    } else if (exact) {
      ok = got == w;
    } else {
      bound = tiny_out + u_out * std::fabs(w) + growth * u_acc * gauge;
      // Rounding to a narrow output type can overflow where the reference does not.
      const double err = std::fabs(got - w);
      ok = std::isfinite(got) && err <= bound;
      if (std::isfinite(got)) {
        r.max_abs_err = std::max(r.max_abs_err, err);
        if (bound > 0) r.max_err_over_bound = std::max(r.max_err_over_bound, err / bound);
        else if (err > 0) r.max_err_over_bound = std::numeric_limits<double>::infinity();
      }
    }
    if (!ok) {
      if (r.mismatches == 0) r.first_failure = describe(l, i, j, got, w, bound);
      ++r.mismatches;
    }
  }
};

// D's padding (gaps between rows and the guard band) must be byte-identical.
void check_padding(const GemmDesc& d, const std::vector<std::uint8_t>& got,
                   const std::vector<std::uint8_t>& before, Compare& r) {
  const int bits = dtype_bits(d.d.dtype);
  if (bits < 8) return;
  const std::size_t esz = static_cast<std::size_t>(bits / 8);
  if (is_packed(d.d, stored_extent_cd(d), d.batch)) {
    // No gaps: only the guard band (and any tail past the last element) is padding.
    const std::size_t end = operand_bytes(d.d, stored_extent_cd(d), d.batch);
    for (std::size_t byte = end; byte < got.size(); ++byte)
      if (got[byte] != before[byte]) {
        if (r.mismatches == 0)
          r.first_failure = "D padding byte " + std::to_string(byte) + " was overwritten";
        ++r.mismatches;
        return;
      }
    return;
  }
  std::vector<bool> logical(got.size() / esz + 1, false);
  const core::Strides sd = core::stored_strides(d.d.layout, d.d.ld);
  for (std::int64_t l = 0; l < d.batch; ++l)
    for (std::int64_t j = 0; j < d.n; ++j)
      for (std::int64_t i = 0; i < d.m; ++i)
        logical[static_cast<std::size_t>(l * d.d.batch_stride + i * sd.row + j * sd.col)] = true;
  for (std::size_t byte = 0; byte < got.size(); ++byte) {
    const bool is_logical = logical[byte / esz] && byte < got.size() - HostCase::kGuardBytes;
    if (!is_logical && got[byte] != before[byte]) {
      if (r.mismatches == 0)
        r.first_failure = "D padding byte " + std::to_string(byte) + " was overwritten";
      ++r.mismatches;
      return;
    }
  }
}

// One element of the fp64 reference with its gauge, BLAS semantics as in reference_visit.
struct RefElement {
  double value = 0.0, gauge = 0.0;
};
RefElement reference_at(const GemmDesc& d, const HostCase& hc, std::int64_t l, std::int64_t i,
                        std::int64_t j) {
  const core::ProblemView v = core::make_view(d);
  RefElement e;
  if (hc.alpha != 0.0 && d.k > 0) {
    double acc = 0.0, gauge = 0.0;
    for (std::int64_t p = 0; p < d.k; ++p) {
      const double x = core::load_element(d.a.dtype, hc.a.data(),
                                          l * d.a.batch_stride + i * v.a.row + p * v.a.col);
      const double y = core::load_element(d.b.dtype, hc.b.data(),
                                          l * d.b.batch_stride + p * v.b.row + j * v.b.col);
      acc += x * y;
      gauge += std::fabs(x * y);
    }
    e.value = hc.alpha * acc;
    e.gauge = std::fabs(hc.alpha) * gauge;
  }
  if (hc.beta != 0.0) {
    const double c = core::load_element(d.c.dtype, hc.c.data(),
                                        l * d.c.batch_stride + i * v.c.row + j * v.c.col);
    e.value += hc.beta * c;
    e.gauge += std::fabs(hc.beta * c);
  }
  return e;
}

}  // namespace

Compare compare_to_matrix(const HostCase& hc, const ReferenceMatrix& ref,
                          const std::vector<std::uint8_t>& got,
                          const std::vector<std::uint8_t>& before) {
  const GemmDesc& d = hc.desc;
  Compare r;
  const ElementCheck check(d);
  const bool similarity = is_fp8_or_fp4(d.a.dtype) || is_fp8_or_fp4(d.b.dtype);
  r.metric = check.exact ? "exact" : similarity ? "similarity" : "gauge";
  const core::Strides sd = core::stored_strides(d.d.layout, d.d.ld);
  double sxy = 0.0, sxx_yy = 0.0;
  if (!core::is_empty(d)) {
    for (std::int64_t l = 0; l < d.batch; ++l)
      for (std::int64_t j = 0; j < d.n; ++j)
        for (std::int64_t i = 0; i < d.m; ++i) {
          const std::size_t e = ref.index(l, i, j);
          const std::int64_t idx = l * d.d.batch_stride + i * sd.row + j * sd.col;
          const double x = core::load_element(d.d.dtype, got.data(), idx), y = ref.value[e];
          if (similarity && std::isfinite(x) && std::isfinite(y)) {
            // The gauge bound's verdict is kept in max_err_over_bound; the similarity decides.
            Compare g;
            check(g, l, i, j, y, ref.gauge[e], x);
            ++r.checked;
            r.max_abs_err = std::max(r.max_abs_err, g.max_abs_err);
            r.max_err_over_bound = std::max(r.max_err_over_bound, g.max_err_over_bound);
            sxy += x * y;
            sxx_yy += x * x + y * y;
            continue;
          }
          check(r, l, i, j, y, check.exact ? 0.0 : ref.gauge[e], x);
        }
  }
  if (similarity) {
    r.similarity_diff = sxx_yy > 0.0 ? 1.0 - 2.0 * sxy / sxx_yy : 0.0;
    if (!(r.similarity_diff < 1e-3)) {
      if (r.mismatches == 0)
        r.first_failure =
            "similarity 1 - 2 sum(xy) / sum(x^2 + y^2) = " + std::to_string(r.similarity_diff) +
            " is not below 1e-3";
      ++r.mismatches;
    }
  }
  check_padding(d, got, before, r);
  r.passed = r.mismatches == 0;
  return r;
}

Compare compare_to_reference(const HostCase& hc, const std::vector<std::uint8_t>& got,
                             const std::vector<std::uint8_t>& before) {
  const GemmDesc& d = hc.desc;
  const bool exact = ElementCheck(d).exact;
  Compare r = compare_to_matrix(hc, reference_dgemm(d, hc.inputs(), !exact), got, before);
  r.reference = "host: fp64 cblas_dgemm (OpenBLAS)";
  return r;
}

Compare probe_compare(const HostCase& hc, const std::vector<std::uint8_t>& got,
                      const std::vector<std::uint8_t>& before, std::uint64_t seed, int samples) {
  const GemmDesc& d = hc.desc;
  Compare r;
  r.metric = "probe";
  if (core::is_empty(d)) {
    check_padding(d, got, before, r);
    r.passed = r.mismatches == 0;
    return r;
  }
  const ElementCheck check(d);
  const core::ProblemView v = core::make_view(d);
  const bool use_ab = hc.alpha != 0.0 && d.k > 0;
  const bool use_c = hc.beta != 0.0;
  const double alpha = hc.alpha, beta = hc.beta;
  const double u_total = check.u_out + check.growth * check.u_acc;
  constexpr int kProbes = 2;
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 7);
  const auto at = [](DType t, const std::vector<std::uint8_t>& buf, std::int64_t idx) {
    return core::load_element(t, buf.data(), idx);
  };
  // Visits every (i, j) of an M x N-like matrix in the order its strides make sequential.
  const auto for_each = [](std::int64_t rows, std::int64_t cols, core::Strides s, auto&& f) {
    if (s.row == 1) {
      for (std::int64_t j = 0; j < cols; ++j)
        for (std::int64_t i = 0; i < rows; ++i) f(i, j, i * s.row + j * s.col);
    } else {
      for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j) f(i, j, i * s.row + j * s.col);
    }
  };
  for (std::int64_t l = 0; l < d.batch; ++l) {
    const std::int64_t oa = l * d.a.batch_stride, ob = l * d.b.batch_stride;
    const std::int64_t oc = l * d.c.batch_stride, od = l * d.d.batch_stride;
    // t: random signs, N x kProbes.
    std::vector<double> t(static_cast<std::size_t>(d.n * kProbes));
    for (double& x : t) x = (rng() & 1) ? 1.0 : -1.0;
    std::vector<double> ref(static_cast<std::size_t>(d.m * kProbes), 0.0);
    std::vector<double> gauge(static_cast<std::size_t>(d.m), 0.0);
    std::vector<double> dt(static_cast<std::size_t>(d.m * kProbes), 0.0);
    bool finite = true;
    std::int64_t bad_i = -1, bad_j = -1;
    if (use_ab) {
      // y = op(B) t (K x kProbes) and ybar = |op(B)| |t| = row sums of |op(B)|.
      std::vector<double> y(static_cast<std::size_t>(d.k * kProbes), 0.0);
      std::vector<double> ybar(static_cast<std::size_t>(d.k), 0.0);
      for_each(d.k, d.n, v.b, [&](std::int64_t p, std::int64_t j, std::int64_t idx) {
        const double b = at(d.b.dtype, hc.b, ob + idx);
        for (int q = 0; q < kProbes; ++q) y[p * kProbes + q] += b * t[j * kProbes + q];
        ybar[p] += std::fabs(b);
      });
      for_each(d.m, d.k, v.a, [&](std::int64_t i, std::int64_t p, std::int64_t idx) {
        const double a = at(d.a.dtype, hc.a, oa + idx);
        for (int q = 0; q < kProbes; ++q) ref[i * kProbes + q] += alpha * a * y[p * kProbes + q];
        gauge[i] += std::fabs(alpha * a) * ybar[p];
      });
    }
    if (use_c) {
      for_each(d.m, d.n, v.c, [&](std::int64_t i, std::int64_t j, std::int64_t idx) {
        const double c = at(d.c.dtype, hc.c, oc + idx);
        for (int q = 0; q < kProbes; ++q) ref[i * kProbes + q] += beta * c * t[j * kProbes + q];
        gauge[i] += std::fabs(beta * c);
      });
    }
    for_each(d.m, d.n, v.d, [&](std::int64_t i, std::int64_t j, std::int64_t idx) {
      const double x = at(d.d.dtype, got, od + idx);
      if (!std::isfinite(x) && finite) {
        finite = false;
        bad_i = i;
        bad_j = j;
      }
      for (int q = 0; q < kProbes; ++q) dt[i * kProbes + q] += x * t[j * kProbes + q];
    });
    if (!finite) {
      // Inputs are finite: a non-finite output is wrong unless the reference is too.
      const RefElement e = reference_at(d, hc, l, bad_i, bad_j);
      check(r, l, bad_i, bad_j, e.value, e.gauge,
            at(d.d.dtype, got, od + bad_i * v.d.row + bad_j * v.d.col));
    }
    for (std::int64_t i = 0; i < d.m; ++i) {
      // The fp64 sums themselves round: allow a relative 1e-12 of the gauge on top.
      const double bound = (u_total + 1e-12) * gauge[i];
      for (int q = 0; q < kProbes; ++q) {
        const double err = std::fabs(dt[i * kProbes + q] - ref[i * kProbes + q]);
        ++r.checked;
        if (std::isfinite(err)) {
          r.max_abs_err = std::max(r.max_abs_err, err);
          if (bound > 0) r.max_err_over_bound = std::max(r.max_err_over_bound, err / bound);
        }
        if (!(err <= bound)) {
          if (r.mismatches == 0) {
            std::ostringstream os;
            os.precision(9);
            os << "probe " << q << " row " << i << " batch " << l << ": (D t)_i = "
               << dt[i * kProbes + q] << ", want " << ref[i * kProbes + q] << " (bound " << bound
               << ")";
            r.first_failure = os.str();
          }
          ++r.mismatches;
        }
      }
    }
    // Sampled entries against the fp64 reference: the corners, then seeded random ones.
    std::uniform_int_distribution<std::int64_t> ui(0, d.m - 1), uj(0, d.n - 1);
    for (int s = 0; s < samples; ++s) {
      std::int64_t i, j;
      if (s < 4) {
        i = (s & 1) ? d.m - 1 : 0;
        j = (s & 2) ? d.n - 1 : 0;
      } else {
        i = ui(rng);
        j = uj(rng);
      }
      const RefElement e = reference_at(d, hc, l, i, j);
      check(r, l, i, j, e.value, e.gauge, at(d.d.dtype, got, od + i * v.d.row + j * v.d.col));
    }
  }
  check_padding(d, got, before, r);
  r.passed = r.mismatches == 0;
  return r;
}

namespace {

// Device copies of a case's A, B, C, D and bias, freed on scope exit.
struct DeviceCase {
  void* p[5] = {};
  ~DeviceCase() {
    for (void* q : p) device_free(q);
  }
};

// Runs the candidate on device copies of the host buffers; d_out receives D.
Status run_on_device(HostCase& hc, DeviceCase& dev, std::vector<std::uint8_t>& d_out,
                     const Options& opt, std::string* err) {
  // The bias goes to the device too, so that a kernel refuses an epilogue by its own status
  // (NotSupported) rather than by a null bias.
  std::vector<std::uint8_t>* host[5] = {&hc.a, &hc.b, &hc.c, &d_out, &hc.bias};
  const int count = hc.bias_ptr() ? 5 : 4;
  Status st = Status{StatusCode::ExecutionFailed, Arg::None, ""};
  bool ok = true;
  for (int i = 0; i < count && ok; ++i)
    ok = device_alloc(&dev.p[i], host[i]->size(), err) &&
         copy_to_device(dev.p[i], host[i]->data(), host[i]->size(), err);
  if (ok) {
    GemmArgs args{dev.p[0], dev.p[1], dev.p[2], dev.p[3], hc.alpha, hc.beta};
    args.bias = dev.p[4];
    st = gemm(hc.desc, args, opt);
    ok = device_synchronize(err) && copy_to_host(d_out.data(), dev.p[3], d_out.size(), err);
    if (!ok && st.ok()) st = Status{StatusCode::ExecutionFailed, Arg::None, *err};
  } else {
    st.message = *err;
  }
  return st;
}

// The GPU reference of hc's problem on fresh device copies of hc's A, B and C: it never reads
// the candidate's buffers, which the candidate might have changed.
bool reference_on_gpu(const HostCase& hc, bool want_gauge, ReferenceMatrix* out, std::string* err) {
  DeviceCase dev;
  const std::vector<std::uint8_t>* host[3] = {&hc.a, &hc.b, &hc.c};
  const bool use[3] = {hc.alpha != 0.0, hc.alpha != 0.0, hc.beta != 0.0};
  for (int i = 0; i < 3; ++i)
    if (use[i] && !(device_alloc(&dev.p[i], host[i]->size(), err) &&
                    copy_to_device(dev.p[i], host[i]->data(), host[i]->size(), err)))
      return false;
  return reference_on_device(hc.desc,
                             GemmArgs{dev.p[0], dev.p[1], dev.p[2], nullptr, hc.alpha, hc.beta},
                             want_gauge, out, err);
}

Compare check_unperturbed(const HostCase& hc, const std::vector<std::uint8_t>& got,
                          const std::vector<std::uint8_t>& before, const CheckPolicy& policy,
                          bool gpu) {
  const GemmDesc& d = hc.desc;
  if (resolve_check(d, policy) == CheckMode::Probe) {
    Compare r = probe_compare(hc, got, before, policy.seed);
    r.reference = "host: probe vectors + sampled entries";
    return r;
  }
  // The GPU reference kernel computes alpha * op(A) op(B) + beta * C only.
  if (!gpu || epilogue_changes_d(d)) return compare_to_reference(hc, got, before);
  const bool exact = ElementCheck(d).exact;
  ReferenceMatrix ref;
  std::string err;
  if (reference_on_gpu(hc, !exact, &ref, &err)) {
    Compare r = compare_to_matrix(hc, ref, got, before);
    r.reference = "gpu: fp64 reference kernel";
    return r;
  }
  Compare r = compare_to_reference(hc, got, before);
  r.reference += " (the GPU reference failed: " + err + ")";
  return r;
}

}  // namespace

std::string_view check_mode_name(CheckMode m) noexcept {
  switch (m) {
    case CheckMode::Full:
      return "full";
    case CheckMode::Probe:
      return "probe";
    case CheckMode::Auto:
      return "auto";
  }
  return "?";
}

bool parse_check_mode(std::string_view s, CheckMode* out) noexcept {
  for (CheckMode m : {CheckMode::Full, CheckMode::Probe, CheckMode::Auto})
    if (s == check_mode_name(m)) {
      *out = m;
      return true;
    }
  return false;
}

CheckMode resolve_check(const GemmDesc& d, const CheckPolicy& policy) noexcept {
  if (epilogue_changes_d(d)) return CheckMode::Full;  // the probe vectors model none of it
  if (policy.mode != CheckMode::Auto) return policy.mode;
  const double flop = 2.0 * static_cast<double>(d.m) * static_cast<double>(d.n) *
                      static_cast<double>(d.k) * static_cast<double>(d.batch);
  return flop <= policy.max_reference_flop ? CheckMode::Full : CheckMode::Probe;
}

bool corrupt_result_requested() noexcept {
  const char* e = std::getenv("GEMMKIT_TEST_CORRUPT_RESULT");
  return e && *e == '1';
}

void corrupt_d00(const GemmDesc& desc, std::vector<std::uint8_t>& d) {
  // Test-only hook: perturb D(0,0) of batch 0 so that a correct kernel must fail.
  if (core::is_empty(desc)) return;
  const double v = core::load_element(desc.d.dtype, d.data(), 0);
  core::store_element(desc.d.dtype, d.data(), 0, v + 1.0 + std::fabs(v));
}

Compare check_result(const HostCase& hc, std::vector<std::uint8_t> d_candidate,
                     const std::vector<std::uint8_t>& d_before, const CheckPolicy& policy,
                     bool gpu_reference) {
  if (corrupt_result_requested()) corrupt_d00(hc.desc, d_candidate);
  return check_unperturbed(hc, d_candidate, d_before, policy, gpu_reference);
}

namespace {

// EpilogueDesc::amax_d: the candidate's amax against the fp64 reference's max |v| (v before
// s_d), within the gauge bound of the largest element's gauge.
void check_amax(const HostCase& hc, VerifyResult* res) {
  const GemmArgs in = hc.inputs();
  const double sd = hc.desc.epilogue.scale_d ? std::fabs(double(hc.out_scale)) : 1.0;
  double want = 0.0, gauge = 0.0;
  core::reference_visit_epilogue(
      hc.desc, in, true,
      [&](std::int64_t, std::int64_t, std::int64_t, double, double g) {
        gauge = std::max(gauge, g / sd);
      },
      &want);
  const double u = unit_roundoff(hc.desc.compute);
  const double bound = (8.0 + std::sqrt(double(hc.desc.k))) * u * gauge + u * std::fabs(want);
  const double got = hc.amax;
  std::ostringstream os;
  os.precision(9);
  os << "amax_d " << got << ", reference " << want << " (bound " << bound << ")";
  const bool ok = std::isnan(want)   ? std::isnan(got)
                  : std::isinf(want) ? got == want
                                     : std::fabs(got - want) <= bound;
  if (!ok) {
    res->cmp.passed = false;
    ++res->cmp.mismatches;
    res->cmp.first_failure = os.str();
  }
  res->note += (res->note.empty() ? "" : "; ") + os.str();
}

}  // namespace

VerifyResult verify_case(const GemmDesc& desc, double alpha, double beta, const Options& opt,
                         std::uint64_t seed, const CheckPolicy& policy) {
  using clock = std::chrono::steady_clock;
  const auto seconds = [](clock::time_point t0) {
    return std::chrono::duration<double>(clock::now() - t0).count();
  };
  VerifyResult res;
  auto t0 = clock::now();
  HostCase hc = HostCase::make(desc, alpha, beta, seed);
  const bool on_device = opt.backend == Backend::Cuda;
  // The candidate writes d_out; hc.d stays as it was (the padding's "before"). On the host it
  // reads hc's A, B and C themselves, so keep copies to prove them unchanged; on the device it
  // only sees device copies (the host buffers cannot change).
  std::vector<std::uint8_t> a0, b0, c0, bias0;
  if (!on_device) a0 = hc.a, b0 = hc.b, c0 = hc.c, bias0 = hc.bias;
  std::vector<std::uint8_t> d_out = hc.d;
  res.setup_s = seconds(t0);
  t0 = clock::now();
  if (on_device) {
    std::string err;
    DeviceCase dev;  // freed before the check: the GPU reference makes its own copies
    res.status = run_on_device(hc, dev, d_out, opt, &err);
  } else {
    GemmArgs args = hc.args();
    args.d = d_out.data();
    res.status = gemm(hc.desc, args, opt);
  }
  res.gemm_s = seconds(t0);
  t0 = clock::now();
  if (!res.status) {
    res.disposition = Disposition::Failed;
    res.note = to_string(res.status);
    return res;
  }
  if (!on_device && (hc.a != a0 || hc.b != b0 || hc.c != c0 || hc.bias != bias0)) {
    res.disposition = Disposition::Incorrect;
    res.note = "an input buffer (A, B, C or the bias) was modified";
    return res;
  }
  if (corrupt_result_requested()) {
    corrupt_d00(hc.desc, d_out);
    res.note = "result corrupted on purpose (GEMMKIT_TEST_CORRUPT_RESULT)";
  }
  res.cmp = check_unperturbed(hc, d_out, hc.d,
                              CheckPolicy{policy.mode, policy.max_reference_flop, seed}, on_device);
  if (hc.desc.epilogue.amax_d && res.cmp.passed) check_amax(hc, &res);
  res.check_s = seconds(t0);
  res.disposition = res.cmp.passed ? Disposition::Passed : Disposition::Incorrect;
  return res;
}

}  // namespace gemmkit::bench
