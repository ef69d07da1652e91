// main() of every GPU test: without a usable CUDA device the test exits 77, which CTest
// reports as skipped (SKIP_RETURN_CODE), never as passed.
#include <gtest/gtest.h>

#include <cstdio>

#include "gemmkit/gemm.hpp"

int gemmkit_gpu_test_main(int argc, char** argv) {
  if (!gemmkit::cuda_available()) {
    std::printf("no usable CUDA device: skipped\n");
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
