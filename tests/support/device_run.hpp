// Running a testbed case on the device by hand, for GPU tests that need what verify_case does
// not do: operands at chosen byte offsets, NaN planted in a buffer, two runs compared bitwise.
#pragma once
#include <cstdint>
#include <vector>

#include "bench/testbed.hpp"
#include "gemmkit/gemm.hpp"

namespace gemmkit::test {

// Runs hc on the device with each operand `offset_bytes[i]` past its allocation's start
// (A, B, C, D), D starting as `d_out`; returns the call's status, d_out holds the result.
Status run_device(bench::HostCase& hc, std::vector<std::uint8_t>& d_out, const Options& opt,
                  const std::int64_t (&offset_bytes)[4] = {0, 0, 0, 0});

// Sets every element of a testbed buffer of dtype `t` (the guard band excepted) to NaN.
void fill_with_nan(std::vector<std::uint8_t>& buf, DType t);

}  // namespace gemmkit::test
