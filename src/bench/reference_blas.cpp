#include "bench/reference_blas.hpp"

#include <cblas.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/element.hpp"
#include "core/epilogue_ref.hpp"
#include "core/reference.hpp"
#include "core/validate.hpp"
#include "core/view.hpp"

namespace gemmkit::bench {

namespace {

// A stored operand widened to fp64 as a packed column-major matrix X (X = S for a column-major
// stored matrix S, X = S^T for a row-major one), and the strides of op(S) inside it.
struct Widened {
  std::vector<double> x;
  std::int64_t rows = 0, ld = 1;  // X is rows x (size / rows), leading dimension ld
  bool op_is_x = true;            // op(S) = X, else op(S) = X^T
  core::Strides op;               // op(S)(r, c) = x[r * op.row + c * op.col]
};

// Widens batch l of operand m (stored extent e, transpose `t`) exactly, in memory order; with
// a block or group scale (`bs.base`), each element dequantized as core::reference_visit does.
void widen(const MatrixDesc& m, Extent e, Op t, const void* base, std::int64_t l, Widened* w,
           const core::KScale& bs = {}, bool is_a = true) {
  const bool col = m.layout == Layout::ColMajor;
  const std::int64_t lines = col ? e.cols : e.rows, len = col ? e.rows : e.cols;
  w->rows = len;
  w->ld = std::max<std::int64_t>(1, len);
  w->x.resize(static_cast<std::size_t>(lines * len));
  const std::int64_t off = l * m.batch_stride;
  double* out = w->x.data();
  for (std::int64_t q = 0; q < lines; ++q) {
    const std::int64_t src = off + q * m.ld;
    double* dst = out + q * len;
    switch (m.dtype) {  // the common types without the per-element switch; same values
      case DType::F64:
        std::memcpy(dst, static_cast<const double*>(base) + src, sizeof(double) * len);
        break;
      case DType::F32: {
        const float* s = static_cast<const float*>(base) + src;
        for (std::int64_t r = 0; r < len; ++r) dst[r] = s[r];
        break;
      }
      default:
        for (std::int64_t r = 0; r < len; ++r) dst[r] = core::load_element(m.dtype, base, src + r);
    }
  }
  if (bs.base != nullptr)
    for (std::int64_t q = 0; q < lines; ++q)
      for (std::int64_t r = 0; r < len; ++r) {
        const std::int64_t row = col ? r : q, cl = col ? q : r;  // of the stored matrix
        const bool op_rows = (t == Op::NoTrans) == is_a;  // stored rows are op's M (A) / N (B)
        const std::int64_t mn = op_rows ? row : cl, k = op_rows ? cl : row;
        out[q * len + r] = bs.dequant(out[q * len + r], mn, k);
      }
  w->op_is_x = col == (t == Op::NoTrans);
  w->op = w->op_is_x ? core::Strides{1, w->ld} : core::Strides{w->ld, 1};
}

// Rows (`rows` true) or columns of op(S) that hold a NaN or an Inf; scanned in memory order.
std::vector<std::int64_t> nonfinite_lines(const Widened& w, bool rows, std::int64_t count) {
  std::vector<char> bad(static_cast<std::size_t>(count), 0);
  bool any = false;
  for (std::size_t e = 0; e < w.x.size(); ++e) {
    if (std::isfinite(w.x[e])) continue;
    const auto r = static_cast<std::int64_t>(e) % w.ld, c = static_cast<std::int64_t>(e) / w.ld;
    // X(r, c) is op(S)(r, c) when op(S) = X, else op(S)(c, r).
    const std::int64_t line = (rows == w.op_is_x) ? r : c;
    bad[static_cast<std::size_t>(line)] = 1;
    any = true;
  }
  std::vector<std::int64_t> out;
  if (any)
    for (std::int64_t q = 0; q < count; ++q)
      if (bad[static_cast<std::size_t>(q)]) out.push_back(q);
  return out;
}

// A tensor / row / column scale at row or column i (1 for none and for block scales).
double vector_scale(const ScaleDesc& s, const void* p, std::int64_t i) {
  if (s.mode == ScaleMode::None || core::varies_along_k(s.mode)) return 1.0;
  return static_cast<const float*>(p)[s.mode == ScaleMode::Tensor ? 0 : i];
}

bool fits_blasint(std::int64_t v) { return v <= std::numeric_limits<blasint>::max(); }

// P (M x N, column-major, ld max(1, M)) = op(A) op(B) on widened operands.
void dgemm(const Widened& a, const Widened& b, std::int64_t m, std::int64_t n, std::int64_t k,
           double* p) {
  cblas_dgemm(CblasColMajor, a.op_is_x ? CblasNoTrans : CblasTrans,
              b.op_is_x ? CblasNoTrans : CblasTrans, static_cast<blasint>(m),
              static_cast<blasint>(n), static_cast<blasint>(k), 1.0, a.x.data(),
              static_cast<blasint>(a.ld), b.x.data(), static_cast<blasint>(b.ld), 0.0, p,
              static_cast<blasint>(std::max<std::int64_t>(1, m)));
}

// Sum and gauge sum of element (i, j) (at idx = j * m + i) by the loop of
// core::reference_visit on the widened values: p = 0 .. K-1 in order, the same bits.
struct Sum {
  std::int64_t idx;
  double value, gauge;
};
Sum sequential_sum(const Widened& a, const Widened& b, const GemmDesc& d, std::int64_t i,
                   std::int64_t j) {
  double acc = 0.0, sum = 0.0;
  for (std::int64_t q = 0; q < d.k; ++q) {
    const double x = a.x[static_cast<std::size_t>(i * a.op.row + q * a.op.col)];
    const double y = b.x[static_cast<std::size_t>(q * b.op.row + j * b.op.col)];
    acc += x * y;
    sum += std::fabs(x * y);
  }
  return Sum{j * d.m + i, acc, sum};
}

ReferenceMatrix empty_result(const GemmDesc& d, bool want_gauge) {
  ReferenceMatrix r;
  r.m = d.m, r.n = d.n, r.batch = d.batch;
  const auto size = static_cast<std::size_t>(d.m * d.n * d.batch);
  r.value.assign(size, 0.0);
  if (want_gauge) r.gauge.assign(size, 0.0);
  return r;
}

}  // namespace

ReferenceMatrix reference_sequential(const GemmDesc& d, const GemmArgs& args, bool want_gauge) {
  ReferenceMatrix r = empty_result(d, want_gauge);
  // The scales, the bias, the activation and s_d as the spec applies them (amax_d is not a
  // matrix: the testbed checks it on its own).
  GemmDesc spec = d;
  spec.epilogue.amax_d = false;
  core::reference_visit_epilogue(
      spec, args, want_gauge,
      [&](std::int64_t l, std::int64_t i, std::int64_t j, double v, double g) {
        r.value[r.index(l, i, j)] = v;
        if (want_gauge) r.gauge[r.index(l, i, j)] = g;
      });
  return r;
}

ReferenceMatrix reference_dgemm(const GemmDesc& d, const GemmArgs& args, bool want_gauge,
                                double blas_min_flop) {
  if (core::is_empty(d)) return empty_result(d, want_gauge);
  const bool use_ab = args.alpha != 0.0 && d.k > 0;
  const bool use_c = args.beta != 0.0;
  if (use_ab && !(fits_blasint(d.m) && fits_blasint(d.n) && fits_blasint(d.k)))
    return reference_sequential(d, args, want_gauge);
  ReferenceMatrix r = empty_result(d, want_gauge);
  const core::Strides sc = core::stored_strides(d.c.layout, d.c.ld);
  const double flop =
      2.0 * static_cast<double>(d.m) * static_cast<double>(d.n) * static_cast<double>(d.k);
  const bool blas = flop >= blas_min_flop;
  const std::int64_t mn = d.m * d.n;
  const EpilogueDesc& e = d.epilogue;
  const double sd = e.scale_d ? double(*args.scale_d) : 1.0;
  const double slope = core::activation_slope_bound(e.act);
  std::vector<double> p, g;  // op(A) op(B) and |op(A)| |op(B)| of one batch
  Widened a, b;
  std::vector<Sum> fixed;  // elements summed sequentially because of a NaN or an Inf
  for (std::int64_t l = 0; l < d.batch; ++l) {
    double* value = r.value.data() + l * mn;
    double* gauge = want_gauge ? r.gauge.data() + l * mn : nullptr;
    if (use_ab) {
      widen(d.a, stored_extent_a(d), d.trans_a, args.a, l, &a,
            core::k_scale(d, args.scale_a, nullptr, true), true);
      widen(d.b, stored_extent_b(d), d.trans_b, args.b, l, &b,
            core::k_scale(d, args.scale_b, args.zero_b, false), false);
      p.resize(static_cast<std::size_t>(mn));
      if (want_gauge) g.resize(static_cast<std::size_t>(mn));
      fixed.clear();
      if (!blas) {  // every element sequentially
        for (std::int64_t j = 0; j < d.n; ++j)
          for (std::int64_t i = 0; i < d.m; ++i) fixed.push_back(sequential_sum(a, b, d, i, j));
      } else {
        // Rows of op(A) and columns of op(B) holding a NaN or an Inf: sequentially there.
        for (std::int64_t i : nonfinite_lines(a, true, d.m))
          for (std::int64_t j = 0; j < d.n; ++j) fixed.push_back(sequential_sum(a, b, d, i, j));
        for (std::int64_t j : nonfinite_lines(b, false, d.n))
          for (std::int64_t i = 0; i < d.m; ++i) fixed.push_back(sequential_sum(a, b, d, i, j));
        dgemm(a, b, d.m, d.n, d.k, p.data());
        if (want_gauge) {
          for (double& x : a.x) x = std::fabs(x);
          for (double& x : b.x) x = std::fabs(x);
          dgemm(a, b, d.m, d.n, d.k, g.data());
        }
      }
      for (const Sum& f : fixed) {
        p[static_cast<std::size_t>(f.idx)] = f.value;
        if (want_gauge) g[static_cast<std::size_t>(f.idx)] = f.gauge;
      }
    }
    // alpha and beta as core::reference_visit applies them.
    const std::int64_t oc = l * d.c.batch_stride;
    const double abs_alpha = std::fabs(args.alpha);
    for (std::int64_t j = 0; j < d.n; ++j)
      for (std::int64_t i = 0; i < d.m; ++i) {
        const std::int64_t idx = j * d.m + i;
        double out = use_ab ? args.alpha * p[static_cast<std::size_t>(idx)] : 0.0;
        double gg = use_ab && want_gauge ? abs_alpha * g[static_cast<std::size_t>(idx)] : 0.0;
        if (use_ab) {  // the scales that do not vary along K, as reference_visit_epilogue
          const double s =
              vector_scale(d.scale_a, args.scale_a, i) * vector_scale(d.scale_b, args.scale_b, j);
          out *= s;
          gg *= std::fabs(s);
        }
        if (use_c) {
          const double c = core::load_element(d.c.dtype, args.c, oc + i * sc.row + j * sc.col);
          out = use_ab ? out + args.beta * c : args.beta * c;  // keeps -0 when alpha == 0
          gg += std::fabs(args.beta * c);
        }
        // The bias, the activation and s_d, as reference_visit_epilogue applies them.
        double b = 0.0;
        if (e.bias != BiasMode::None) {
          b = core::load_element(e.bias_dtype, args.bias, e.bias == BiasMode::Row ? i : j);
          out += b;
        }
        value[idx] = core::activate(e.act, out) * sd;
        if (want_gauge) gauge[idx] = slope * (gg + std::fabs(b)) * std::fabs(sd);
      }
  }
  return r;
}

}  // namespace gemmkit::bench
