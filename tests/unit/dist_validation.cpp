// The tensor-parallel front door (src/dist/validate.hpp) on the host, with rank and size given as
// a Communicator would: one test per illegal argument, each refused with the status naming it;
// the public calls with no communicator change no output byte.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "dist/validate.hpp"
#include "gemmkit/dist.hpp"

namespace gemmkit::dist {
namespace {

// M x K row-major A, K x N B, M x N row-major C and D, f32: legal for both operations.
GemmDesc desc(std::int64_t m, std::int64_t n, std::int64_t k) {
  GemmDesc d{.m = m, .n = n, .k = k};
  d.a = {DType::F32, Layout::RowMajor, 0, 0};
  d.b = {DType::F32, Layout::ColMajor, 0, 0};
  d.c = {DType::F32, Layout::RowMajor, 0, 0};
  d.d = {DType::F32, Layout::RowMajor, 0, 0};
  return with_default_lds(d);
}

struct Buffers {
  std::vector<float> a, b, c, d;
  GemmArgs args(double alpha = 1, double beta = 0.5) {
    return {
        .a = a.data(), .b = b.data(), .c = c.data(), .d = d.data(), .alpha = alpha, .beta = beta};
  }
};
Buffers buffers(std::int64_t m, std::int64_t n, std::int64_t k) {
  return {std::vector<float>(m * k, 1), std::vector<float>(k * n, 1), std::vector<float>(m * n, 1),
          std::vector<float>(m * n, 7)};
}

Status check(Tp tp, const GemmDesc& d, const GemmArgs& a, const TpOptions& o = {}, int rank = 0,
             int size = 2) {
  std::vector<Range> shards;
  Options opt;
  opt.backend = Backend::Cpu;
  return validate_tp(tp, d, a, o, opt, rank, size, &shards);
}

void expect_refused(const Status& s, StatusCode code, Arg arg, const char* word) {
  EXPECT_EQ(s.code, code) << to_string(s);
  EXPECT_EQ(s.arg, arg) << to_string(s);
  EXPECT_NE(to_string(s).find(word), std::string::npos) << to_string(s);
}

TEST(DistValidation, LegalCallsPass) {
  Buffers buf = buffers(10, 6, 8);
  for (Tp tp : {Tp::Column, Tp::Row}) {
    std::vector<Range> shards;
    Options opt;
    opt.backend = Backend::Cpu;
    ASSERT_TRUE(validate_tp(tp, desc(10, 6, 8), buf.args(), {}, opt, 1, 3, &shards));
    EXPECT_EQ(shards, (std::vector<Range>{{0, 4}, {4, 7}, {7, 10}}));
  }
  // alpha == 0: A and B are never read, so they may be null.
  GemmArgs a = buf.args(0, 1);
  a.a = a.b = nullptr;
  EXPECT_TRUE(check(Tp::Column, desc(10, 6, 8), a));
  EXPECT_TRUE(check(Tp::Row, desc(10, 6, 8), a));
  // beta == 0: C is never read.
  a = buf.args(1, 0);
  a.c = nullptr;
  EXPECT_TRUE(check(Tp::Row, desc(10, 6, 8), a));
}

TEST(DistValidation, Communicator) {
  Buffers buf = buffers(4, 4, 4);
  expect_refused(check(Tp::Column, desc(4, 4, 4), buf.args(), {}, 0, 0), StatusCode::InvalidValue,
                 Arg::None, "comm");
  expect_refused(check(Tp::Row, desc(4, 4, 4), buf.args(), {}, 2, 2), StatusCode::InvalidValue,
                 Arg::None, "comm");
}

TEST(DistValidation, Shards) {
  Buffers buf = buffers(10, 4, 4);
  const std::vector<std::int64_t> sum9{4, 5}, three{3, 3, 4}, neg{-1, 11};
  for (Tp tp : {Tp::Column, Tp::Row}) {
    expect_refused(check(tp, desc(10, 4, 4), buf.args(), {.m_shards = sum9}),
                   StatusCode::InvalidValue, Arg::M,
                   "m_shards: the shard sizes add up to 9, not 10");
    expect_refused(check(tp, desc(10, 4, 4), buf.args(), {.m_shards = three}),
                   StatusCode::InvalidValue, Arg::M, "3 shard sizes for 2 ranks");
    expect_refused(check(tp, desc(10, 4, 4), buf.args(), {.m_shards = neg}),
                   StatusCode::InvalidValue, Arg::M, "negative");
  }
}

TEST(DistValidation, Options) {
  Buffers buf = buffers(4, 4, 4);
  expect_refused(check(Tp::Column, desc(4, 4, 4), buf.args(), {.chunks = 0}),
                 StatusCode::InvalidValue, Arg::None, "chunks");
  float ws[4];
  expect_refused(
      check(Tp::Column, desc(4, 4, 4), buf.args(), {.workspace = ws, .workspace_bytes = sizeof ws}),
      StatusCode::WorkspaceTooSmall, Arg::Workspace, "64 needed");
  expect_refused(check(Tp::Row, desc(4, 4, 4), buf.args(), {.workspace_bytes = 64}),
                 StatusCode::InvalidValue, Arg::Workspace, "workspace");
  // All-reduce sums in place: no workspace needed.
  EXPECT_EQ(row_parallel_workspace(desc(4, 4, 4), {.reduce = RowReduce::AllReduce}), 0u);
  EXPECT_EQ(row_parallel_workspace(desc(4, 4, 4)), 64u);
}

TEST(DistValidation, Problem) {
  Buffers buf = buffers(4, 4, 4);
  GemmDesc d = desc(4, 4, 4);
  d.m = -1;
  expect_refused(check(Tp::Column, d, buf.args()), StatusCode::InvalidValue, Arg::M, "m");
  d = desc(4, 4, 4);
  d.batch = 2;
  d.a.batch_stride = d.b.batch_stride = d.c.batch_stride = d.d.batch_stride = 16;
  expect_refused(check(Tp::Row, d, buf.args()), StatusCode::NotSupported, Arg::Batch, "batch");
  d = desc(4, 4, 4);
  d.a.ld = 5;  // rows of A are not packed: a gather of whole rows would take the padding
  expect_refused(check(Tp::Column, d, buf.args()), StatusCode::InvalidValue, Arg::Lda, "lda");
  d = desc(4, 4, 4);
  d.a = {DType::F32, Layout::ColMajor, 4, 0};  // rows of op(A) are strided
  expect_refused(check(Tp::Column, d, buf.args()), StatusCode::InvalidValue, Arg::Lda, "lda");
  d.trans_a = Op::Trans;  // column-major A^T: rows of op(A) contiguous again
  EXPECT_TRUE(check(Tp::Column, d, buf.args()));
  d = desc(4, 4, 4);
  d.d = {DType::F32, Layout::ColMajor, 4, 0};
  d.c = d.d;
  expect_refused(check(Tp::Row, d, buf.args()), StatusCode::InvalidValue, Arg::Ldd, "ldd");
  EXPECT_TRUE(check(Tp::Column, d, buf.args())) << "column_parallel takes any D the GEMM takes";
  d = desc(4, 4, 4);
  d.epilogue.act = Activation::Relu;
  expect_refused(check(Tp::Row, d, buf.args()), StatusCode::NotSupported, Arg::Epilogue,
                 "epilogue");
  d.epilogue.amax_d = true;
  float amax = 0;
  GemmArgs a = buf.args();
  a.amax_d = &amax;
  expect_refused(check(Tp::Column, d, a), StatusCode::NotSupported, Arg::AmaxD, "amax_d");
}

TEST(DistValidation, Dtypes) {
  Buffers buf = buffers(4, 4, 4);
  GemmDesc d = desc(4, 4, 4);
  d.a.dtype = d.b.dtype = DType::I4;
  d.c.dtype = d.d.dtype = DType::I32;
  d.compute = DType::I32;
  expect_refused(check(Tp::Column, d, buf.args(1, 0)), StatusCode::NotSupported, Arg::DTypeA,
                 "dtype_a");
  d = desc(4, 4, 4);
  d.a.dtype = d.b.dtype = DType::E4M3;
  d.d.dtype = DType::E4M3;
  d.c.dtype = DType::F32;
  expect_refused(check(Tp::Row, d, buf.args(1, 0)), StatusCode::NotSupported, Arg::DTypeD,
                 "dtype_d");
  d = desc(4, 4, 4);
  d.compute = DType::I32;  // f32 operands, an integer accumulator: gemm()'s own rule, named
  const Status s = check(Tp::Column, d, buf.args());
  EXPECT_FALSE(s) << to_string(s);
  EXPECT_NE(s.arg, Arg::None) << to_string(s);
}

TEST(DistValidation, Pointers) {
  Buffers buf = buffers(4, 4, 4);
  for (Tp tp : {Tp::Column, Tp::Row}) {
    GemmArgs a = buf.args();
    a.a = nullptr;
    expect_refused(check(tp, desc(4, 4, 4), a), StatusCode::InvalidValue, Arg::A, "A is null");
    a = buf.args();
    a.b = nullptr;
    expect_refused(check(tp, desc(4, 4, 4), a), StatusCode::InvalidValue, Arg::B, "B is null");
    a = buf.args();
    a.c = nullptr;
    expect_refused(check(tp, desc(4, 4, 4), a), StatusCode::InvalidValue, Arg::C, "C is null");
    a = buf.args();
    a.d = nullptr;
    expect_refused(check(tp, desc(4, 4, 4), a), StatusCode::InvalidValue, Arg::D, "D is null");
  }
  // A rank that holds no rows of A may pass a null A.
  GemmArgs a = buf.args();
  a.a = nullptr;
  const std::vector<std::int64_t> none_here{0, 4};
  EXPECT_TRUE(check(Tp::Column, desc(4, 4, 4), a, {.m_shards = none_here}, 0, 2));
}

TEST(DistValidation, ReduceScatterCAndDAreThisRanksRows) {
  // Rank 1 of {3, 7}: its C is 7 x 5 column-major with ld 7 (< M = 10): legal.
  Buffers buf = buffers(10, 5, 4);
  GemmDesc d = desc(10, 5, 4);
  d.c = {DType::F32, Layout::ColMajor, 7, 0};
  const std::vector<std::int64_t> sh{3, 7};
  EXPECT_TRUE(check(Tp::Row, d, buf.args(), {.m_shards = sh}, 1, 2));
  d.c.ld = 6;
  expect_refused(check(Tp::Row, d, buf.args(), {.m_shards = sh}, 1, 2), StatusCode::InvalidValue,
                 Arg::Ldc, "ldc");
}

TEST(DistValidation, PublicCallsWithoutACommunicatorChangeNothing) {
  Buffers buf = buffers(4, 4, 4);
  const std::vector<float> before = buf.d;
  const Communicator none;
  EXPECT_FALSE(none.valid());
  for (const Status& s : {column_parallel(none, desc(4, 4, 4), buf.args()),
                          row_parallel(none, desc(4, 4, 4), buf.args())}) {
    EXPECT_FALSE(s);
    const char* why = built_with_nccl() ? "comm" : "built without NCCL";
    EXPECT_NE(to_string(s).find(why), std::string::npos) << to_string(s);
  }
  EXPECT_EQ(buf.d, before);
  Communicator c;
  EXPECT_FALSE(Communicator::create(nullptr, &c));
  EXPECT_FALSE(c.valid());
}

}  // namespace
}  // namespace gemmkit::dist
