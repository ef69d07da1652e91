#include "bench/colmajor_form.hpp"

namespace gemmkit::bench {

std::string ColMajorForm::ops() const {
  return std::string(1, trans_first ? 'T' : 'N') + (trans_second ? 'T' : 'N');
}

ColMajorForm colmajor_form(const GemmDesc& d) {
  ColMajorForm f;
  if (d.c.layout != d.d.layout || d.c.ld != d.d.ld) {
    f.why = "C and D differ in layout or leading dimension";
    return f;
  }
  // op in column-major terms: transposed iff (stored row-major) xor (op == Trans).
  const bool ta = (d.a.layout == Layout::RowMajor) != (d.trans_a == Op::Trans);
  const bool tb = (d.b.layout == Layout::RowMajor) != (d.trans_b == Op::Trans);
  f.ok = true;
  f.k = d.k;
  f.ld_c = d.c.ld;
  f.ld_d = d.d.ld;
  if (d.c.layout == Layout::ColMajor) {
    f.m = d.m;
    f.n = d.n;
    f.trans_first = ta;
    f.trans_second = tb;
    f.ld_first = d.a.ld;
    f.ld_second = d.b.ld;
    f.stride_first = d.a.batch_stride;
    f.stride_second = d.b.batch_stride;
    f.dtype_first = d.a.dtype;
    f.dtype_second = d.b.dtype;
  } else {
    // D^T (N x M, column-major) = op(B)^T op(A)^T: op(B)^T of the stored B is transposed iff
    // op(B) was not (in column-major terms).
    f.swapped = true;
    f.m = d.n;
    f.n = d.m;
    f.trans_first = !tb;
    f.trans_second = !ta;
    f.ld_first = d.b.ld;
    f.ld_second = d.a.ld;
    f.stride_first = d.b.batch_stride;
    f.stride_second = d.a.batch_stride;
    f.dtype_first = d.b.dtype;
    f.dtype_second = d.a.dtype;
  }
  return f;
}

}  // namespace gemmkit::bench
