// Every illegal argument yields InvalidValue naming the argument (netlib
// numbering), nothing runs, and every byte of the output is unchanged. C++ API and C ABI.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <vector>

#include "gemmkit/gemm.hpp"
#include "gemmkit/gemmkit.h"

namespace gemmkit {
namespace {

constexpr std::int64_t M = 4, N = 3, K = 5;

struct Buffers {
  std::vector<float> a = std::vector<float>(64, 1.0f), b = std::vector<float>(64, 2.0f);
  std::vector<float> c = std::vector<float>(64, 3.0f), d = std::vector<float>(64, 4.0f);
};

GemmDesc good_desc() {
  return GemmDesc{.m = M, .n = N, .k = K,
                  .a = {DType::F32, Layout::ColMajor, M, 0},
                  .b = {DType::F32, Layout::ColMajor, K, 0},
                  .c = {DType::F32, Layout::ColMajor, M, 0},
                  .d = {DType::F32, Layout::ColMajor, M, 0}};
}

struct Case {
  const char* what;
  Arg expected;
  std::function<void(GemmDesc&, GemmArgs&, Options&)> mutate;
};

void expect_rejected(const Case& tc) {
  SCOPED_TRACE(tc.what);
  Buffers buf;
  GemmDesc d = good_desc();
  GemmArgs args{buf.a.data(), buf.b.data(), buf.c.data(), buf.d.data(), 1.5, 0.5};
  Options opt{.backend = Backend::Cpu};
  tc.mutate(d, args, opt);
  const Buffers before = buf;
  Status s = gemm(d, args, opt);
  EXPECT_EQ(s.code, StatusCode::InvalidValue) << to_string(s);
  EXPECT_EQ(s.arg, tc.expected) << to_string(s);
  EXPECT_FALSE(s.message.empty());
  EXPECT_EQ(0, std::memcmp(buf.d.data(), before.d.data(), buf.d.size() * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(buf.c.data(), before.c.data(), buf.c.size() * sizeof(float)));
  // can_implement judges the descriptor alone: it must agree wherever no pointer is involved.
  if (tc.expected != Arg::A && tc.expected != Arg::B && tc.expected != Arg::C &&
      tc.expected != Arg::D) {
    Status c = can_implement(d, opt);
    EXPECT_EQ(c.code, StatusCode::InvalidValue);
    EXPECT_EQ(c.arg, tc.expected);
  }
}

TEST(ApiValidation, EveryIllegalArgumentIsNamedAndNothingChanges) {
  const std::vector<Case> cases = {
      {"bad trans_a", Arg::TransA, [](auto& d, auto&, auto&) { d.trans_a = static_cast<Op>(9); }},
      {"bad trans_b", Arg::TransB, [](auto& d, auto&, auto&) { d.trans_b = static_cast<Op>(9); }},
      {"m < 0", Arg::M, [](auto& d, auto&, auto&) { d.m = -1; }},
      {"n < 0", Arg::N, [](auto& d, auto&, auto&) { d.n = -1; }},
      {"k < 0", Arg::K, [](auto& d, auto&, auto&) { d.k = -1; }},
      {"m and n < 0: m first", Arg::M, [](auto& d, auto&, auto&) { d.m = -1, d.n = -2; }},
      {"lda < m", Arg::Lda, [](auto& d, auto&, auto&) { d.a.ld = M - 1; }},
      {"lda < k for A^T", Arg::Lda,
       [](auto& d, auto&, auto&) { d.trans_a = Op::Trans, d.a.ld = K - 1; }},
      {"lda < k row-major", Arg::Lda,
       [](auto& d, auto&, auto&) { d.a.layout = Layout::RowMajor, d.a.ld = K - 1; }},
      {"lda negative", Arg::Lda, [](auto& d, auto&, auto&) { d.a.ld = -4; }},
      {"ldb < k", Arg::Ldb, [](auto& d, auto&, auto&) { d.b.ld = K - 1; }},
      {"ldb < n for B^T", Arg::Ldb,
       [](auto& d, auto&, auto&) { d.trans_b = Op::Trans, d.b.ld = N - 1; }},
      {"ldc < m", Arg::Ldc, [](auto& d, auto&, auto&) { d.c.ld = M - 1; }},
      {"ldc < n row-major", Arg::Ldc,
       [](auto& d, auto&, auto&) { d.c.layout = Layout::RowMajor, d.c.ld = N - 1; }},
      {"ldd < m", Arg::Ldd, [](auto& d, auto&, auto&) { d.d.ld = M - 1; }},
      {"batch < 0", Arg::Batch, [](auto& d, auto&, auto&) { d.batch = -1; }},
      {"stride_a < 0", Arg::StrideA, [](auto& d, auto&, auto&) { d.a.batch_stride = -1; }},
      {"stride_b < 0", Arg::StrideB, [](auto& d, auto&, auto&) { d.b.batch_stride = -1; }},
      {"stride_c < 0", Arg::StrideC, [](auto& d, auto&, auto&) { d.c.batch_stride = -1; }},
      {"stride_d overlaps", Arg::StrideD,
       [](auto& d, auto&, auto&) { d.batch = 2, d.d.batch_stride = M * N - 1; }},
      {"bad layout", Arg::Layout,
       [](auto& d, auto&, auto&) { d.b.layout = static_cast<Layout>(7); }},
      {"dtype_a i32", Arg::DTypeA, [](auto& d, auto&, auto&) { d.a.dtype = DType::I32; }},
      {"dtype_b e8m0", Arg::DTypeB, [](auto& d, auto&, auto&) { d.b.dtype = DType::E8M0; }},
      {"int A with float B", Arg::DTypeB, [](auto& d, auto&, auto&) { d.a.dtype = DType::I8; }},
      {"dtype_c i4", Arg::DTypeC, [](auto& d, auto&, auto&) { d.c.dtype = DType::I4; }},
      {"dtype_d e8m0", Arg::DTypeD, [](auto& d, auto&, auto&) { d.d.dtype = DType::E8M0; }},
      {"compute f16", Arg::ComputeType, [](auto& d, auto&, auto&) { d.compute = DType::F16; }},
      {"null A", Arg::A, [](auto&, auto& a, auto&) { a.a = nullptr; }},
      {"null B", Arg::B, [](auto&, auto& a, auto&) { a.b = nullptr; }},
      {"null C with beta != 0", Arg::C, [](auto&, auto& a, auto&) { a.c = nullptr; }},
      {"null D", Arg::D, [](auto&, auto& a, auto&) { a.d = nullptr; }},
      {"D aliases C with another ld", Arg::D,
       [](auto& d, auto& a, auto&) { a.d = const_cast<void*>(a.c), d.d.ld = M + 1; }},
      {"D overlaps A", Arg::D,
       [](auto&, auto& a, auto&) { a.d = static_cast<float*>(const_cast<void*>(a.a)) + 3; }},
      {"unknown kernel", Arg::Kernel, [](auto&, auto&, auto& o) { o.kernel = "cpu.no_such"; }},
  };
  for (const Case& tc : cases) expect_rejected(tc);
}

TEST(ApiValidation, CudaBackendWithoutDeviceIsNotSupported) {
  if (cuda_available()) GTEST_SKIP() << "a CUDA device is present";
  Buffers buf;
  const Buffers before = buf;
  Status s = gemm(good_desc(), {buf.a.data(), buf.b.data(), buf.c.data(), buf.d.data(), 1, 0},
                  {.backend = Backend::Cuda});
  EXPECT_EQ(s.code, StatusCode::NotSupported) << to_string(s);
  EXPECT_EQ(0, std::memcmp(buf.d.data(), before.d.data(), buf.d.size() * sizeof(float)));
}

TEST(ApiValidation, StatusStringsAndArgumentNames) {
  EXPECT_EQ(status_string(StatusCode::InvalidValue), "InvalidValue");
  EXPECT_EQ(status_string(StatusCode::WorkspaceTooSmall), "WorkspaceTooSmall");
  EXPECT_EQ(arg_name(Arg::Lda), "lda");
  EXPECT_EQ(static_cast<int>(Arg::Ldc), 13);
  Status s{StatusCode::InvalidValue, Arg::Ldb, "ldb = 1"};
  EXPECT_NE(to_string(s).find("argument 10: ldb"), std::string::npos) << to_string(s);
  EXPECT_STREQ(gemmkit_status_string(0), "Success");
  EXPECT_STREQ(gemmkit_status_string(1), "InvalidValue");
}

// The CBLAS-shaped entry: the return value is the netlib position.
struct CCase {
  const char* what;
  int expected;
  int layout = GEMMKIT_COL_MAJOR, ta = GEMMKIT_NO_TRANS, tb = GEMMKIT_NO_TRANS;
  std::int64_t m = M, n = N, k = K, lda = M, ldb = K, ldc = M;
};

TEST(CAbiValidation, EveryIllegalArgumentIsNamedAndNothingChanges) {
  const std::vector<CCase> cases = {
      {.what = "layout", .expected = 21, .layout = 0},
      {.what = "transa", .expected = 1, .ta = 0},
      {.what = "transb", .expected = 2, .tb = 110},
      {.what = "m", .expected = 3, .m = -1},
      {.what = "n", .expected = 4, .n = -5},
      {.what = "k", .expected = 5, .k = -1},
      {.what = "lda < m", .expected = 8, .lda = M - 1},
      {.what = "lda = 0", .expected = 8, .lda = 0},
      {.what = "lda < k with A^T", .expected = 8, .ta = GEMMKIT_TRANS, .lda = M},
      {.what = "ldb < k", .expected = 10, .ldb = K - 1},
      {.what = "ldb = 0", .expected = 10, .ldb = 0},
      {.what = "ldc < m", .expected = 13, .ldc = M - 1},
      {.what = "ldc = 0", .expected = 13, .ldc = 0},
      {.what = "row-major lda < k", .expected = 8, .layout = GEMMKIT_ROW_MAJOR, .lda = K - 1,
       .ldb = N, .ldc = N},
      {.what = "row-major ldc < n", .expected = 13, .layout = GEMMKIT_ROW_MAJOR, .lda = K,
       .ldb = N, .ldc = N - 1},
  };
  for (const CCase& tc : cases) {
    SCOPED_TRACE(tc.what);
    for (bool dbl : {false, true}) {
      std::vector<double> a(64, 1), b(64, 2), c(64, 3);
      std::vector<float> af(64, 1), bf(64, 2), cf(64, 3);
      const auto c0 = c;
      const auto cf0 = cf;
      int rc = dbl ? gemmkit_dgemm(tc.layout, tc.ta, tc.tb, tc.m, tc.n, tc.k, 1.0, a.data(),
                                   tc.lda, b.data(), tc.ldb, 0.5, c.data(), tc.ldc)
                   : gemmkit_sgemm(tc.layout, tc.ta, tc.tb, tc.m, tc.n, tc.k, 1.0f, af.data(),
                                   tc.lda, bf.data(), tc.ldb, 0.5f, cf.data(), tc.ldc);
      EXPECT_EQ(rc, tc.expected) << gemmkit_last_error();
      EXPECT_NE(std::string(gemmkit_last_error()), "");
      EXPECT_EQ(c, c0);
      EXPECT_EQ(0, std::memcmp(cf.data(), cf0.data(), cf.size() * sizeof(float)));
    }
  }
}

TEST(CAbiValidation, ValidCallSucceedsAndClearsTheError) {
  double a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4] = {1, 1, 1, 1};
  gemmkit_dgemm(0, GEMMKIT_NO_TRANS, GEMMKIT_NO_TRANS, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2);
  // row-major: [[1 2],[3 4]] * [[5 6],[7 8]] = [[19 22],[43 50]]; beta = 2 on C = 1
  EXPECT_EQ(gemmkit_dgemm(GEMMKIT_ROW_MAJOR, GEMMKIT_NO_TRANS, GEMMKIT_NO_TRANS, 2, 2, 2, 1, a, 2,
                          b, 2, 2, c, 2),
            0);
  EXPECT_STREQ(gemmkit_last_error(), "");
  EXPECT_EQ(c[0], 21);
  EXPECT_EQ(c[1], 24);
  EXPECT_EQ(c[2], 45);
  EXPECT_EQ(c[3], 52);
}

}  // namespace
}  // namespace gemmkit
