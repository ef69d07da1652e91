// On the CPU: index arithmetic past 2^31 and 2^32 elements (lda * K over
// 2^31, an operand spanning more than 2^31 elements, a batch stride over 2^32), for every CPU
// kernel that takes the problem and for the planner's choice. The operands live in sparse
// mappings (mmap with MAP_NORESERVE: only the pages holding used elements are touched), so a
// case needs a few pages of memory, not gigabytes. Values are small integers, so every
// result is exact in f32 and f64 and compared bit for bit with a strided fp64 loop.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "dispatch/registry.hpp"
#include "gemmkit/gemm.hpp"
#include "support/oracle.hpp"

namespace gemmkit {
namespace {

using std::int64_t;

// An anonymous mapping of `bytes` that reserves no memory up front.
class SparseBuffer {
 public:
  explicit SparseBuffer(std::size_t bytes) : bytes_(bytes) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    p_ = p == MAP_FAILED ? nullptr : p;
  }
  ~SparseBuffer() {
    if (p_) munmap(p_, bytes_);
  }
  SparseBuffer(const SparseBuffer&) = delete;
  SparseBuffer& operator=(const SparseBuffer&) = delete;
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
  std::size_t bytes_;
};

// Element (row, col) of batch l of a column- or row-major operand with leading dimension ld.
int64_t index_of(const MatrixDesc& m, int64_t row, int64_t col, int64_t l) {
  return l * m.batch_stride + (m.layout == Layout::ColMajor ? row + col * m.ld : row * m.ld + col);
}

template <class T>
struct Case {
  GemmDesc desc;
  double alpha = 2.0, beta = -1.0;
  int64_t a_elems = 0, b_elems = 0, c_elems = 0;  // spans, batches included
};

// Runs `desc` (T = float or double) with every CPU kernel that takes it and with the planner,
// comparing all of D exactly with the strided reference; returns the runs made.
template <class T>
int run_case(const Case<T>& cs, std::uint64_t seed) {
  const GemmDesc& d = cs.desc;
  SparseBuffer a(cs.a_elems * sizeof(T)), b(cs.b_elems * sizeof(T)), c(cs.c_elems * sizeof(T)),
      dd(cs.c_elems * sizeof(T));
  if (!a.get() || !b.get() || !c.get() || !dd.get()) return -1;
  T* pa = static_cast<T*>(a.get());
  T* pb = static_cast<T*>(b.get());
  T* pc = static_cast<T*>(c.get());
  T* pd = static_cast<T*>(dd.get());
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> u(-3, 3);
  const bool ta = d.trans_a == Op::Trans, tb = d.trans_b == Op::Trans;
  for (int64_t l = 0; l < d.batch; ++l) {
    for (int64_t i = 0; i < d.m; ++i)
      for (int64_t p = 0; p < d.k; ++p) pa[index_of(d.a, ta ? p : i, ta ? i : p, l)] = T(u(rng));
    for (int64_t p = 0; p < d.k; ++p)
      for (int64_t j = 0; j < d.n; ++j) pb[index_of(d.b, tb ? j : p, tb ? p : j, l)] = T(u(rng));
    for (int64_t i = 0; i < d.m; ++i)
      for (int64_t j = 0; j < d.n; ++j) pc[index_of(d.c, i, j, l)] = T(u(rng));
  }
  std::vector<std::string> kernels;
  for (const auto& k : dispatch::registry().all())
    if (k.backend == Backend::Cpu && k.can_implement(d).ok()) kernels.push_back(k.name);
  kernels.push_back("");  // the planner's choice
  int runs = 0;
  std::printf("%s x%lld: %zu kernels + planner\n", sizeof(T) == 4 ? "f32" : "f64",
              static_cast<long long>(d.batch), kernels.size() - 1);
  for (const std::string& name : kernels) {
    for (int64_t l = 0; l < d.batch; ++l)
      for (int64_t i = 0; i < d.m; ++i)
        for (int64_t j = 0; j < d.n; ++j) pd[index_of(d.d, i, j, l)] = T(1234);
    const Options opt{.backend = Backend::Cpu, .kernel = name.empty() ? nullptr : name.c_str()};
    const Status st = gemm(d, GemmArgs{pa, pb, pc, pd, cs.alpha, cs.beta}, opt);
    EXPECT_TRUE(st.ok()) << (name.empty() ? "planner" : name) << ": " << st.message;
    if (!st.ok()) continue;
    ++runs;
    int bad = 0;
    for (int64_t l = 0; l < d.batch; ++l)
      for (int64_t i = 0; i < d.m; ++i)
        for (int64_t j = 0; j < d.n; ++j) {
          double ref = 0;
          for (int64_t p = 0; p < d.k; ++p)
            ref += double(pa[index_of(d.a, ta ? p : i, ta ? i : p, l)]) *
                   double(pb[index_of(d.b, tb ? j : p, tb ? p : j, l)]);
          ref = cs.alpha * ref + cs.beta * double(pc[index_of(d.c, i, j, l)]);
          const double got = double(pd[index_of(d.d, i, j, l)]);
          if (got != ref && bad++ < 3)
            ADD_FAILURE() << (name.empty() ? "planner" : name) << " D(" << i << "," << j
                          << ") batch " << l << ": got " << got << ", want " << ref << " (seed "
                          << seed << ")";
        }
  }
  return runs;
}

constexpr int64_t k2p30 = int64_t{1} << 30, k2p32 = int64_t{1} << 32;

// lda * K > 2^31: A's last column starts past element 2^31 (and the C ABI's int range).
template <class T>
void lda_times_k(Op ta, Layout la, std::uint64_t seed) {
  Case<T> cs;
  const int64_t m = 5, n = 4, k = 3, lda = k2p30 + 3;
  const DType t = sizeof(T) == 4 ? DType::F32 : DType::F64;
  const bool rows_are_m = (ta == Op::NoTrans) == (la == Layout::ColMajor);  // ld steps over K
  cs.desc = GemmDesc{.m = m,
                     .n = n,
                     .k = k,
                     .trans_a = ta,
                     .a = {t, la, lda, 0},
                     .b = {t, Layout::ColMajor, k, 0},
                     .c = {t, Layout::ColMajor, m, 0},
                     .d = {t, Layout::ColMajor, m, 0},
                     .compute = t};
  cs.a_elems = lda * (rows_are_m ? k : m);
  cs.b_elems = k * n;
  cs.c_elems = m * n;
  const int runs = run_case(cs, seed);
  if (runs < 0)
    GTEST_SKIP() << "the kernel refused a sparse mapping of " << cs.a_elems << " elements";
  EXPECT_GE(runs, 2) << "the planner and at least one kernel";
}

TEST(LargeIndex, LdaTimesKOver2p31) {
  const std::uint64_t seed = test::test_seed();
  lda_times_k<float>(Op::NoTrans, Layout::ColMajor, seed);
  lda_times_k<float>(Op::Trans, Layout::RowMajor, seed + 1);
  lda_times_k<double>(Op::NoTrans, Layout::ColMajor, seed + 2);
  lda_times_k<double>(Op::Trans, Layout::ColMajor, seed + 3);  // ld steps over M
}

// A row-major B whose rows are 2^30 + 5 apart: B spans more than 2^31 elements (ldb * K).
TEST(LargeIndex, OperandOver2p31Elements) {
  Case<float> cs;
  const int64_t m = 3, n = 6, k = 4, ldb = k2p30 + 5;
  cs.desc = GemmDesc{.m = m,
                     .n = n,
                     .k = k,
                     .a = {DType::F32, Layout::ColMajor, m, 0},
                     .b = {DType::F32, Layout::RowMajor, ldb, 0},
                     .c = {DType::F32, Layout::RowMajor, n, 0},
                     .d = {DType::F32, Layout::RowMajor, n, 0},
                     .compute = DType::F32};
  cs.a_elems = m * k;
  cs.b_elems = ldb * k;
  cs.c_elems = m * n;
  const int runs = run_case(cs, test::test_seed());
  if (runs < 0) GTEST_SKIP() << "the kernel refused a sparse mapping";
  EXPECT_GE(runs, 2);
}

// Batch strides over 2^32 elements on A and on D (C packed): batch entry 1 starts past 2^32.
TEST(LargeIndex, BatchStrideOver2p32) {
  Case<float> cs;
  const int64_t m = 4, n = 3, k = 5, batch = 2;
  cs.desc = GemmDesc{.m = m,
                     .n = n,
                     .k = k,
                     .a = {DType::F32, Layout::ColMajor, m, k2p32 + 16},
                     .b = {DType::F32, Layout::ColMajor, k, k * n},
                     .c = {DType::F32, Layout::ColMajor, m, k2p32 + 64},
                     .d = {DType::F32, Layout::ColMajor, m, k2p32 + 64},
                     .batch = batch,
                     .compute = DType::F32};
  cs.a_elems = (k2p32 + 16) * (batch - 1) + m * k;
  cs.b_elems = k * n * batch;
  cs.c_elems = (k2p32 + 64) * (batch - 1) + m * n;
  const int runs = run_case(cs, test::test_seed());
  if (runs < 0) GTEST_SKIP() << "the kernel refused a sparse mapping";
  EXPECT_GE(runs, 2);
}

}  // namespace
}  // namespace gemmkit
