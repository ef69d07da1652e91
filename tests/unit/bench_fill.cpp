// The testbed's fills: the parallel fill_uniform gives the values of the sequential definition
// (mt19937_64 -> uniform_real_distribution -> store_element), bit for bit, so a printed seed
// reproduces the same case as before it was parallel.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "bench/testbed.hpp"
#include "core/element.hpp"

namespace gemmkit::bench {
namespace {

TEST(BenchFill, ParallelFillMatchesTheSequentialDefinition) {
  for (DType t : {DType::F32, DType::BF16, DType::F64, DType::E4M3})
    for (std::int64_t count : {std::int64_t{5}, std::int64_t{70000}, std::int64_t{200003}}) {
      const std::size_t bytes = static_cast<std::size_t>(count) * dtype_bits(t) / 8;
      std::vector<std::uint8_t> got(bytes), want(bytes);
      fill_uniform(t, got.data(), count, 42);
      std::mt19937_64 rng(42);
      std::uniform_real_distribution<double> u(-1.0, 1.0);
      for (std::int64_t i = 0; i < count; ++i) core::store_element(t, want.data(), i, u(rng), true);
      EXPECT_EQ(got, want) << dtype_name(t) << " count " << count;
    }
}

}  // namespace
}  // namespace gemmkit::bench
