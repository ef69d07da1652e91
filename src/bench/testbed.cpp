#include "bench/testbed.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

#include "bench/device_mem.hpp"
#include "core/element.hpp"
#include "core/reference.hpp"
#include "core/validate.hpp"
#include "core/view.hpp"

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

void fill_uniform(DType t, void* p, std::int64_t count, std::uint64_t seed, double lo,
                  double hi) {
  std::mt19937_64 rng(seed);
  if (core::is_float_type(t)) {
    std::uniform_real_distribution<double> u(lo, hi);
    for (std::int64_t i = 0; i < count; ++i) core::store_element(t, p, i, u(rng), true);
  } else {
    std::uniform_int_distribution<int> u(static_cast<int>(std::ceil(lo)),
                                         static_cast<int>(std::floor(hi)));
    for (std::int64_t i = 0; i < count; ++i) core::store_element(t, p, i, u(rng));
  }
}

namespace {

// Unit roundoff of a type (0 for integers: exact).
double unit_roundoff(DType t) {
  switch (t) {
    case DType::F64: return std::ldexp(1.0, -53);
    case DType::F32: return std::ldexp(1.0, -24);
    case DType::F16: return std::ldexp(1.0, -11);
    case DType::BF16: return std::ldexp(1.0, -8);
    case DType::E4M3: return std::ldexp(1.0, -4);
    case DType::E5M2: return std::ldexp(1.0, -3);
    default: return 0.0;
  }
}

std::int64_t elements_of(const MatrixDesc& m, Extent e, std::int64_t batch) {
  std::int64_t elems = core::footprint(m.layout, e, m.ld);
  if (elems == 0 || batch == 0) return 0;
  return elems + (batch - 1) * m.batch_stride;
}

std::vector<std::uint8_t> make_buffer(const MatrixDesc& m, Extent e, std::int64_t batch) {
  return std::vector<std::uint8_t>(operand_bytes(m, e, batch) + HostCase::kGuardBytes,
                                   HostCase::kSentinel);
}

// Fills only the logical elements of every batch, leaving the padding at the sentinel.
void fill_logical(const MatrixDesc& m, Extent e, std::int64_t batch, std::uint8_t* buf,
                  std::uint64_t seed) {
  const std::int64_t n = elements_of(m, e, batch);
  if (n == 0) return;
  std::vector<std::uint8_t> tmp((n * dtype_bits(m.dtype) + 7) / 8 + 1);
  fill_uniform(m.dtype, tmp.data(), n, seed);
  const core::Strides s = core::stored_strides(m.layout, m.ld);
  for (std::int64_t l = 0; l < batch; ++l)
    for (std::int64_t r = 0; r < e.rows; ++r)
      for (std::int64_t c = 0; c < e.cols; ++c) {
        const std::int64_t idx = l * m.batch_stride + r * s.row + c * s.col;
        core::store_element(m.dtype, buf, idx, core::load_element(m.dtype, tmp.data(), idx));
      }
}

bool same_bits(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }

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
  fill_logical(d.c, stored_extent_cd(d), batch, hc.c.data(), seed * 4 + 3);
  return hc;
}

GemmArgs HostCase::args() { return GemmArgs{a.data(), b.data(), c.data(), d.data(), alpha, beta}; }

GemmArgs HostCase::args_in_place() {
  return GemmArgs{a.data(), b.data(), c.data(), c.data(), alpha, beta};
}

Compare compare_to_reference(const HostCase& hc, const std::vector<std::uint8_t>& got,
                             const std::vector<std::uint8_t>& before) {
  const GemmDesc& d = hc.desc;
  Compare r;
  const bool exact = d.d.dtype == DType::I32 ||
                     (!core::is_float_type(d.a.dtype) && !core::is_float_type(d.d.dtype));
  r.metric = exact ? "exact" : "gauge";
  const double u_out = unit_roundoff(d.d.dtype);
  const double u_acc = unit_roundoff(d.compute);
  const double growth = 8.0 + std::sqrt(static_cast<double>(d.k));
  const core::Strides sd = core::stored_strides(d.d.layout, d.d.ld);
  // Logical elements of D, to check the padding afterwards.
  std::vector<bool> logical(before.size() * 8 / std::max(1, dtype_bits(d.d.dtype)) + 1, false);
  GemmArgs in{hc.a.data(), hc.b.data(), hc.c.data(), nullptr, hc.alpha, hc.beta};
  core::reference_visit(d, in, !exact, [&](std::int64_t l, std::int64_t i, std::int64_t j,
                                           double want, double gauge) {
    const std::int64_t idx = l * d.d.batch_stride + i * sd.row + j * sd.col;
    logical[idx] = true;
    double w = want;
    if (exact) {  // the reference rounded to the output type
      std::uint8_t tmp[8] = {};
      core::store_element(d.d.dtype, tmp, 0, want);
      w = core::load_element(d.d.dtype, tmp, 0);
    }
    const double g = core::load_element(d.d.dtype, got.data(), idx);
    ++r.checked;
    double bound = 0.0;
    bool ok;
    if (std::isnan(w)) {
      ok = std::isnan(g);
    } else if (std::isinf(w)) {
      ok = same_bits(w, g);
    } else if (exact) {
      ok = g == w;
    } else {
      bound = u_out * std::fabs(w) + growth * u_acc * gauge;
      // Rounding to a narrow output type can overflow where the reference does not.
      const double err = std::fabs(g - w);
      ok = std::isfinite(g) && err <= bound;
      if (std::isfinite(g)) {
        r.max_abs_err = std::max(r.max_abs_err, err);
        if (bound > 0) r.max_err_over_bound = std::max(r.max_err_over_bound, err / bound);
        else if (err > 0) r.max_err_over_bound = std::numeric_limits<double>::infinity();
      }
    }
    if (!ok) {
      if (r.mismatches == 0) r.first_failure = describe(l, i, j, g, w, bound);
      ++r.mismatches;
    }
  });
  // D's padding (gaps between rows and the guard band) must be byte-identical.
  const int bits = dtype_bits(d.d.dtype);
  if (bits >= 8) {
    const std::size_t esz = static_cast<std::size_t>(bits / 8);
    for (std::size_t byte = 0; byte < got.size(); ++byte) {
      const std::size_t idx = byte / esz;
      const bool is_logical = idx < logical.size() && logical[idx] &&
                              byte < got.size() - HostCase::kGuardBytes;
      if (!is_logical && got[byte] != before[byte]) {
        if (r.mismatches == 0)
          r.first_failure = "D padding byte " + std::to_string(byte) + " was overwritten";
        ++r.mismatches;
        break;
      }
    }
  }
  r.passed = r.mismatches == 0;
  return r;
}

namespace {

// Runs the candidate on device copies of the host buffers.
Status run_on_device(HostCase& hc, std::vector<std::uint8_t>& d_out, const Options& opt,
                     std::string* err) {
  void* dev[4] = {};
  std::vector<std::uint8_t>* host[4] = {&hc.a, &hc.b, &hc.c, &d_out};
  Status st = Status{StatusCode::ExecutionFailed, Arg::None, ""};
  bool ok = true;
  for (int i = 0; i < 4 && ok; ++i)
    ok = device_alloc(&dev[i], host[i]->size(), err) &&
         copy_to_device(dev[i], host[i]->data(), host[i]->size(), err);
  if (ok) {
    st = gemm(hc.desc, GemmArgs{dev[0], dev[1], dev[2], dev[3], hc.alpha, hc.beta}, opt);
    ok = device_synchronize(err) && copy_to_host(d_out.data(), dev[3], d_out.size(), err);
    if (!ok && st.ok()) st = Status{StatusCode::ExecutionFailed, Arg::None, *err};
  } else {
    st.message = *err;
  }
  for (void* p : dev) device_free(p);
  return st;
}

}  // namespace

VerifyResult verify_case(const GemmDesc& desc, double alpha, double beta, const Options& opt,
                         std::uint64_t seed) {
  VerifyResult res;
  HostCase hc = HostCase::make(desc, alpha, beta, seed);
  const auto a0 = hc.a, b0 = hc.b, c0 = hc.c, d0 = hc.d;
  std::vector<std::uint8_t> d_out = hc.d;
  const bool on_device = opt.backend == Backend::Cuda;
  if (on_device) {
    std::string err;
    res.status = run_on_device(hc, d_out, opt, &err);
  } else {
    res.status = gemm(hc.desc, GemmArgs{hc.a.data(), hc.b.data(), hc.c.data(), d_out.data(),
                                        alpha, beta},
                      opt);
  }
  if (!res.status) {
    res.disposition = Disposition::Failed;
    res.note = to_string(res.status);
    return res;
  }
  if (hc.a != a0 || hc.b != b0 || hc.c != c0) {
    res.disposition = Disposition::Incorrect;
    res.note = "an input buffer (A, B or C) was modified";
    return res;
  }
  if (const char* e = std::getenv("GEMMKIT_TEST_CORRUPT_RESULT"); e && *e == '1') {
    // Test-only hook: perturb D(0,0) of batch 0 so that a correct kernel must fail.
    if (!core::is_empty(hc.desc)) {
      const double v = core::load_element(hc.desc.d.dtype, d_out.data(), 0);
      core::store_element(hc.desc.d.dtype, d_out.data(), 0, v + 1.0 + std::fabs(v));
    }
    res.note = "result corrupted on purpose (GEMMKIT_TEST_CORRUPT_RESULT)";
  }
  res.cmp = compare_to_reference(hc, d_out, d0);
  res.disposition = res.cmp.passed ? Disposition::Passed : Disposition::Incorrect;
  return res;
}

}  // namespace gemmkit::bench
