// Rows of a GEMM as a GEMM of their own: the pointer arithmetic that lets a tensor-parallel call
// run its local GEMM chunk by chunk (and the host simulation run it shard by shard).
#pragma once
#include <cstdint>

#include "dist/partition.hpp"
#include "gemmkit/gemm.hpp"

namespace gemmkit::dist {

struct Call {
  GemmDesc desc;
  GemmArgs args;
};

// Bytes from an operand's start to row `row` of its op()-view (rows of op(A) for A with
// `transposed` = trans_a, rows of C / D with false). Expects a defaulted ld and a whole-byte
// dtype.
std::int64_t row_offset_bytes(const MatrixDesc& m, bool transposed, std::int64_t row) noexcept;

// Rows `rows` of op(A), C, D (and of a Row bias) of `call`: m = rows.size(), the pointers moved
// to rows.begin; B, the scalars and everything else unchanged. Expects defaulted lds.
Call rows_of(const Call& call, Range rows) noexcept;

// True when row i of op(A) is contiguous and follows row i - 1 (row-major not transposed, or
// column-major transposed, ld == K): what a gather of whole rows needs.
bool rows_packed_a(const GemmDesc& d) noexcept;
// The same for D (row-major, ld == N): what a reduction of whole rows needs.
bool rows_packed_d(const GemmDesc& d) noexcept;

}  // namespace gemmkit::dist
