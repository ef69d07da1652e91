// Tensor-parallel GEMM over NCCL with one rank on one GPU (ncclCommInitAll of device 0): each
// operation (column-parallel; row-parallel with reduce-scatter and with all-reduce), unchunked
// and chunked (overlap), with gemmkit's workspace and the caller's, is bitwise the single-GPU
// gemm() (batch-invariant: a chunk's rows get the whole's bits; one rank's sum is its partial).
// Bad arguments are refused naming the argument with D unchanged. Exits 77 (skipped) without a
// CUDA device or without NCCL.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <vector>

#include "gemmkit/dist.hpp"
#include "gemmkit/gemm.hpp"

#if defined(GEMMKIT_HAVE_CUDA) && defined(GEMMKIT_HAVE_NCCL)
#include <nccl.h>

#include "support/dist_case.hpp"

namespace gemmkit::dist {
namespace {

using test::DeviceVec;
using test::DistCase;

struct OneRank : ::testing::Test {
  ncclComm_t nccl = nullptr;
  Communicator comm;
  cudaStream_t stream = nullptr;
  void SetUp() override {
    int dev = 0;
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ASSERT_EQ(ncclCommInitAll(&nccl, 1, &dev), ncclSuccess);
    const Status s = Communicator::create(nccl, &comm);
    ASSERT_TRUE(s) << to_string(s);
    EXPECT_EQ(comm.rank(), 0);
    EXPECT_EQ(comm.size(), 1);
    EXPECT_EQ(comm.device(), 0);
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  }
  void TearDown() override {
    comm = Communicator();  // its stream and events go before the ncclComm_t
    if (stream) cudaStreamDestroy(stream);
    if (nccl) ncclCommDestroy(nccl);
  }
  Options opt() const {
    Options o;
    o.backend = Backend::Cuda;
    o.stream = stream;
    o.batch_invariant = true;
    return o;
  }
  // D of the single-GPU gemm() of the whole problem.
  std::vector<float> single(const DistCase& pc) {
    DeviceVec<std::uint16_t> a(pc.a), b(pc.b);
    DeviceVec<float> c(pc.c), d(std::vector<float>(pc.c.size(), -1));
    const Status s =
        gemm(DistCase::desc(pc.m, pc.n, pc.k),
             {.a = a.p, .b = b.p, .c = c.p, .d = d.p, .alpha = pc.alpha, .beta = pc.beta}, opt());
    EXPECT_TRUE(s) << to_string(s);
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    return d.host();
  }
};

enum class Op { Column, RowScatter, RowAll };
const char* name(Op op) {
  return op == Op::Column       ? "column"
         : op == Op::RowScatter ? "row/reduce-scatter"
                                : "row/all-reduce";
}

TEST_F(OneRank, EachOperationIsBitwiseTheSingleGemm) {
  for (auto [m, n, k] :
       {std::array<std::int64_t, 3>{1000, 384, 512}, {129, 65, 300}, {8, 256, 128}}) {
    DistCase pc(m, n, k, 4200 + m);
    const std::vector<float> ref = single(pc);
    for (Op op : {Op::Column, Op::RowScatter, Op::RowAll})
      for (int chunks : {1, 3, 8})
        for (bool caller_ws : {false, true}) {
          SCOPED_TRACE(::testing::Message()
                       << name(op) << " " << m << "x" << n << "x" << k << " chunks " << chunks
                       << (caller_ws ? " caller ws" : ""));
          DeviceVec<std::uint16_t> a(pc.a), b(pc.b);
          DeviceVec<float> c(pc.c), d(std::vector<float>(pc.c.size(), -1));
          TpOptions tp{.reduce = op == Op::RowAll ? RowReduce::AllReduce : RowReduce::ReduceScatter,
                       .chunks = chunks};
          const GemmDesc desc = DistCase::desc(m, n, k);
          const std::size_t need =
              op == Op::Column ? column_parallel_workspace(desc) : row_parallel_workspace(desc, tp);
          void* ws = nullptr;
          if (caller_ws && need > 0) {
            ASSERT_EQ(cudaMalloc(&ws, need), cudaSuccess);
            tp.workspace = ws;
            tp.workspace_bytes = need;
          }
          const GemmArgs args{
              .a = a.p, .b = b.p, .c = c.p, .d = d.p, .alpha = pc.alpha, .beta = pc.beta};
          const Status s = op == Op::Column ? column_parallel(comm, desc, args, tp, opt())
                                            : row_parallel(comm, desc, args, tp, opt());
          ASSERT_TRUE(s) << to_string(s);
          ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
          const std::vector<float> got = d.host();
          cudaFree(ws);
          ASSERT_EQ(got.size(), ref.size());
          std::size_t bad = 0, first = 0;
          for (std::size_t i = 0; i < ref.size(); ++i)
            if (std::memcmp(&got[i], &ref[i], sizeof(float)) != 0 && bad++ == 0) first = i;
          EXPECT_EQ(bad, 0u) << "first at " << first << ": " << got[first] << " vs " << ref[first];
        }
  }
}

TEST_F(OneRank, BadArgumentsChangeNothing) {
  DistCase pc(64, 32, 16, 77);
  DeviceVec<std::uint16_t> a(pc.a), b(pc.b);
  const std::vector<float> before(pc.c.size(), 5);
  DeviceVec<float> c(pc.c), d(before);
  const GemmArgs args{.a = a.p, .b = b.p, .c = c.p, .d = d.p, .alpha = 1, .beta = 1};
  const GemmDesc desc = DistCase::desc(pc.m, pc.n, pc.k);
  const std::int64_t wrong[] = {63};
  for (bool column : {true, false}) {
    auto call = [&](const Communicator& cm, const GemmDesc& dd, const TpOptions& tp) {
      return column ? column_parallel(cm, dd, args, tp, opt())
                    : row_parallel(cm, dd, args, tp, opt());
    };
    Status s = call(comm, desc, {.m_shards = wrong});
    EXPECT_EQ(s.arg, Arg::M) << to_string(s);
    s = call(Communicator(), desc, {});
    EXPECT_NE(to_string(s).find("comm"), std::string::npos) << to_string(s);
    s = call(comm, desc, {.chunks = 0});
    EXPECT_NE(to_string(s).find("chunks"), std::string::npos) << to_string(s);
    GemmDesc bad = desc;
    bad.a.ld = pc.k + 1;
    bad.d.ld = pc.n + 1;
    s = call(comm, bad, {});
    EXPECT_EQ(s.code, StatusCode::InvalidValue) << to_string(s);
  }
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(d.host(), before);
}

}  // namespace
}  // namespace gemmkit::dist

int gemmkit_gpu_test_main(int argc, char** argv);
int main(int argc, char** argv) { return gemmkit_gpu_test_main(argc, argv); }

#else
int main() {
  std::printf("built without CUDA or NCCL: skipped\n");
  return 77;
}
#endif
