// The C++ side of python/examples/call_overhead.py: the same small GEMM called many times
// through gemmkit::gemm (and through the C ABI's gemmkit_gemm): the best of 7 runs, ns per
// call in wall time and in this thread's CPU time (which a busy machine disturbs less).
//   g++ -O2 -std=c++20 -Iinclude python/examples/call_overhead.cpp -Lbuild -lgemmkit \
//       -Wl,-rpath,$PWD/build -o /tmp/call_overhead && /tmp/call_overhead 8 200000
#include <gemmkit/gemmkit.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <gemmkit/gemm.hpp>
#include <vector>

namespace {

double thread_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

struct Best {
  double wall_ns, cpu_ns;
};

template <class F>
Best best_ns(F&& f, int calls) {
  Best b{1e300, 1e300};
  for (int r = 0; r < 7; ++r) {
    const double c0 = thread_cpu_ns();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) f();
    const auto t1 = std::chrono::steady_clock::now();
    const double c1 = thread_cpu_ns();
    b.wall_ns =
        std::min(b.wall_ns, std::chrono::duration<double, std::nano>(t1 - t0).count() / calls);
    b.cpu_ns = std::min(b.cpu_ns, (c1 - c0) / calls);
  }
  return b;
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
  const Best x = best_ns(cpp, calls), y = best_ns(cabi, calls);
  std::printf("cpp_gemm_ns %.1f %.1f\n", x.wall_ns, x.cpu_ns);
  std::printf("c_abi_gemm_ns %.1f %.1f\n", y.wall_ns, y.cpu_ns);
  std::printf("result %g (want %lld)\n", d[0], static_cast<long long>(n));
}
