// The C++ side of python/examples/call_overhead.py: the same small GEMM called many times
// through gemmkit::gemm (and through the C ABI's gemmkit_gemm), median ns per call of 7 runs.
//   g++ -O2 -std=c++20 -Iinclude python/examples/call_overhead.cpp -Lbuild -lgemmkit \
//       -Wl,-rpath,$PWD/build -o /tmp/call_overhead && /tmp/call_overhead 8 200000
#include <gemmkit/gemmkit.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <gemmkit/gemm.hpp>
#include <vector>

namespace {

template <class F>
double median_ns(F&& f, int calls) {
  std::vector<double> runs;
  for (int r = 0; r < 7; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) f();
    const auto t1 = std::chrono::steady_clock::now();
    runs.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / calls);
  }
  std::sort(runs.begin(), runs.end());
  return runs[3];
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 8;
  const int calls = argc > 2 ? std::atoi(argv[2]) : 200000;
  std::vector<float> a(n * n, 1.0f), b(n * n, 1.0f), d(n * n);
  using namespace gemmkit;
  // Row-major, as a C-ordered numpy array; a fresh descriptor each call, as Python builds one.
  auto cpp = [&] {
    const GemmDesc desc{.m = n,
                        .n = n,
                        .k = n,
                        .a = {DType::F32, Layout::RowMajor, n, 0},
                        .b = {DType::F32, Layout::RowMajor, n, 0},
                        .c = {DType::F32, Layout::RowMajor, n, 0},
                        .d = {DType::F32, Layout::RowMajor, n, 0}};
    if (!gemm(desc, {a.data(), b.data(), nullptr, d.data(), 1.0, 0.0}, {.backend = Backend::Cpu}))
      std::abort();
  };
  auto cabi = [&] {
    gemmkit_problem p{};
    p.abi_version = GEMMKIT_ABI_VERSION;
    p.trans_a = p.trans_b = GEMMKIT_NO_TRANS;
    p.m = p.n = p.k = n;
    p.batch = 1;
    p.a = p.b = p.c = p.d = {GEMMKIT_F32, GEMMKIT_ROW_MAJOR, n, 0};
    p.backend = GEMMKIT_BACKEND_CPU;
    p.allow_fallback = 1;
    gemmkit_status st;
    if (gemmkit_gemm(&p, a.data(), b.data(), nullptr, d.data(), 1.0, 0.0, &st) != 0) std::abort();
  };
  cpp();
  std::printf("cpp_gemm_ns %.1f\n", median_ns(cpp, calls));
  std::printf("c_abi_gemm_ns %.1f\n", median_ns(cabi, calls));
  std::printf("result %g (want %lld)\n", d[0], static_cast<long long>(n));
}
