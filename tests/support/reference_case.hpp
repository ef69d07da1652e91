// A small GEMM case for the reference tests (the fast host reference and the GPU reference,
// each against the element-wise oracle): shape, transposes, layouts, types, a padding added to
// every leading dimension, packed batches with A or B optionally broadcast (batch stride 0).
#pragma once
#include <cstdint>
#include <sstream>
#include <string>

#include "core/view.hpp"
#include "gemmkit/gemm.hpp"

namespace gemmkit::test {

struct ReferenceCase {
  std::int64_t m, n, k;
  Op ta = Op::NoTrans, tb = Op::NoTrans;
  Layout la = Layout::ColMajor, lb = Layout::ColMajor, lc = Layout::ColMajor;
  DType in = DType::F32, c = DType::F32;
  std::int64_t pad = 0;  // added to every leading dimension
  std::int64_t batch = 1;
  bool broadcast_a = false, broadcast_b = false;  // that operand's batch stride 0
  double alpha = 1.0, beta = 0.0;
};

inline std::string describe(const ReferenceCase& c) {
  std::ostringstream os;
  os << "m=" << c.m << " n=" << c.n << " k=" << c.k << " trans=" << (c.ta == Op::Trans)
     << (c.tb == Op::Trans) << " layouts=" << layout_name(c.la) << "," << layout_name(c.lb) << ","
     << layout_name(c.lc) << " in=" << dtype_name(c.in) << " c=" << dtype_name(c.c)
     << " pad=" << c.pad << " batch=" << c.batch << (c.broadcast_a ? " (A broadcast)" : "")
     << (c.broadcast_b ? " (B broadcast)" : "") << " alpha=" << c.alpha << " beta=" << c.beta;
  return os.str();
}

inline GemmDesc make_desc(const ReferenceCase& c) {
  GemmDesc d{.m = c.m, .n = c.n, .k = c.k, .trans_a = c.ta, .trans_b = c.tb};
  d.a = {c.in, c.la, 0, 0};
  d.b = {c.in, c.lb, 0, 0};
  d.c = {c.c, c.lc, 0, 0};
  d.d = d.c;
  d.batch = c.batch;
  const bool integer = c.in == DType::I8 || c.in == DType::I4;
  d.compute = integer ? DType::I32 : DType::F32;
  d = with_default_lds(d);
  d.a.ld += c.pad;
  d.b.ld += c.pad;
  d.c.ld += c.pad;
  d.d.ld += c.pad;
  d = core::with_packed_batch_strides(d);
  if (c.broadcast_a) d.a.batch_stride = 0;
  if (c.broadcast_b) d.b.batch_stride = 0;
  return d;
}

}  // namespace gemmkit::test
