// Rows of a GEMM (slice.hpp).
#include "dist/slice.hpp"

namespace gemmkit::dist {
namespace {

const void* advance(const void* p, std::int64_t bytes) noexcept {
  return p ? static_cast<const char*>(p) + bytes : nullptr;
}
void* advance(void* p, std::int64_t bytes) noexcept {
  return p ? static_cast<char*>(p) + bytes : nullptr;
}

}  // namespace

std::int64_t row_offset_bytes(const MatrixDesc& m, bool transposed, std::int64_t row) noexcept {
  // A row of the op()-view is a row of storage (row-major, not transposed; column-major,
  // transposed): ld elements apart; else a column of storage: one element apart.
  const bool row_of_storage = (m.layout == Layout::RowMajor) != transposed;
  const std::int64_t elems = row_of_storage ? row * m.ld : row;
  return elems * (dtype_bits(m.dtype) / 8);
}

Call rows_of(const Call& call, Range rows) noexcept {
  Call out = call;
  const GemmDesc& d = call.desc;
  out.desc.m = rows.size();
  out.args.a = advance(call.args.a, row_offset_bytes(d.a, d.trans_a == Op::Trans, rows.begin));
  out.args.c = advance(call.args.c, row_offset_bytes(d.c, false, rows.begin));
  out.args.d = advance(call.args.d, row_offset_bytes(d.d, false, rows.begin));
  if (d.epilogue.bias == BiasMode::Row)
    out.args.bias = advance(call.args.bias, rows.begin * (dtype_bits(d.epilogue.bias_dtype) / 8));
  return out;
}

bool rows_packed_a(const GemmDesc& d) noexcept {
  const bool rows_of_storage = (d.a.layout == Layout::RowMajor) == (d.trans_a == Op::NoTrans);
  return rows_of_storage && (d.k == 0 || d.a.ld == d.k);
}

bool rows_packed_d(const GemmDesc& d) noexcept {
  return d.d.layout == Layout::RowMajor && (d.n == 0 || d.d.ld == d.n);
}

}  // namespace gemmkit::dist
