// Tensor-parallel GEMM over every visible GPU, one host thread per GPU, one communicator each
// (ncclCommInitAll). Column-parallel with unequal M shards and equal N blocks: each rank's D is
// bitwise its single-GPU gemm() of the whole A with its column block (batch-invariant). Row-
// parallel with unequal K shards, reduce-scatter over unequal M shards and all-reduce: within the
// gauge bound of the single-GPU gemm() of the whole problem (the sum's order changed), unchunked
// and chunked. Exits 77 (skipped) with fewer than 2 GPUs, without CUDA or without NCCL.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "gemmkit/dist.hpp"
#include "gemmkit/gemm.hpp"

#if defined(GEMMKIT_HAVE_CUDA) && defined(GEMMKIT_HAVE_NCCL)
#include <nccl.h>

#include "dist/partition.hpp"
#include "support/dist_case.hpp"

namespace gemmkit::dist {
namespace {

using test::DeviceVec;
using test::DistCase;

int gpus() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

Options opt_on(cudaStream_t s) {
  Options o;
  o.backend = Backend::Cuda;
  o.stream = s;
  o.batch_invariant = true;
  return o;
}

// Runs body(rank, comm, stream) on one thread per GPU; statuses collected per rank.
template <class F>
std::vector<std::string> on_every_gpu(int p, F body) {
  std::vector<ncclComm_t> comms(static_cast<std::size_t>(p));
  std::vector<int> devs(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) devs[static_cast<std::size_t>(r)] = r;
  std::vector<std::string> errors(static_cast<std::size_t>(p));
  if (ncclCommInitAll(comms.data(), p, devs.data()) != ncclSuccess) return {"ncclCommInitAll"};
  std::vector<std::thread> pool;
  for (int r = 0; r < p; ++r)
    pool.emplace_back([&, r] {
      cudaSetDevice(r);
      cudaStream_t s = nullptr;
      cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
      {
        Communicator comm;
        Status st = Communicator::create(comms[static_cast<std::size_t>(r)], &comm);
        if (st) st = body(r, comm, s);
        if (st && cudaStreamSynchronize(s) != cudaSuccess) st.message = "sync failed";
        if (!st) errors[static_cast<std::size_t>(r)] = to_string(st);
      }
      cudaStreamDestroy(s);
    });
  for (std::thread& t : pool) t.join();
  for (ncclComm_t c : comms) ncclCommDestroy(c);
  return errors;
}

// Unequal sizes adding up to `total` over p ranks: rank r gets a share growing with r.
std::vector<std::int64_t> unequal(std::int64_t total, int p) {
  std::vector<std::int64_t> s(static_cast<std::size_t>(p));
  std::int64_t left = total, weight = p * (p + 1) / 2;
  for (int r = 0; r < p; ++r) {
    s[static_cast<std::size_t>(r)] = r + 1 == p ? left : total * (r + 1) / weight;
    left -= s[static_cast<std::size_t>(r)];
  }
  return s;
}

TEST(MultiRank, ColumnParallelIsBitwiseEachRanksSingleGemm) {
  const int p = gpus();
  const DistCase pc(1000, 512, 384, 91);
  const std::vector<std::int64_t> m_sizes = unequal(pc.m, p);
  const std::vector<Range> rows = ranges_of_sizes(m_sizes), cols = equal_ranges(pc.n, p);
  for (int chunks : {1, 4}) {
    std::vector<std::vector<float>> got(static_cast<std::size_t>(p)), ref(got.size());
    const auto errors = on_every_gpu(p, [&](int r, const Communicator& comm, cudaStream_t s) {
      const Range mr = rows[static_cast<std::size_t>(r)], nc = cols[static_cast<std::size_t>(r)];
      DeviceVec<std::uint16_t> a(pc.a_block(mr.begin, mr.end, 0, pc.k)),
          all(pc.a_block(0, pc.m, 0, pc.k)), b(pc.b_block(nc.begin, nc.end, 0, pc.k));
      DeviceVec<float> c(pc.c_block(0, pc.m, nc.begin, nc.end)), d(std::vector<float>(c.n, -1)),
          d_ref(std::vector<float>(c.n, -2));
      const GemmDesc desc = DistCase::desc(pc.m, nc.size(), pc.k);
      Status st = column_parallel(
          comm, desc, {.a = a.p, .b = b.p, .c = c.p, .d = d.p, .alpha = pc.alpha, .beta = pc.beta},
          {.m_shards = m_sizes, .chunks = chunks}, opt_on(s));
      if (st)
        st =
            gemm(desc,
                 {.a = all.p, .b = b.p, .c = c.p, .d = d_ref.p, .alpha = pc.alpha, .beta = pc.beta},
                 opt_on(s));
      cudaStreamSynchronize(s);
      got[static_cast<std::size_t>(r)] = d.host();
      ref[static_cast<std::size_t>(r)] = d_ref.host();
      return st;
    });
    for (int r = 0; r < p; ++r) {
      EXPECT_EQ(errors[static_cast<std::size_t>(r)], "") << "rank " << r;
      const auto& g = got[static_cast<std::size_t>(r)];
      const auto& f = ref[static_cast<std::size_t>(r)];
      ASSERT_EQ(g.size(), f.size());
      EXPECT_EQ(std::memcmp(g.data(), f.data(), g.size() * sizeof(float)), 0)
          << "rank " << r << " of " << p << ", chunks " << chunks;
    }
  }
}

TEST(MultiRank, RowParallelWithinTheGaugeBound) {
  const int p = gpus();
  const DistCase pc(777, 320, 1000, 92);
  const std::vector<std::int64_t> m_sizes = unequal(pc.m, p), k_sizes = unequal(pc.k, p);
  const std::vector<Range> rows = ranges_of_sizes(m_sizes), ks = ranges_of_sizes(k_sizes);
  // The whole problem on GPU 0.
  cudaSetDevice(0);
  std::vector<float> whole;
  {
    DeviceVec<std::uint16_t> a(pc.a), b(pc.b);
    DeviceVec<float> c(pc.c), d(std::vector<float>(pc.c.size(), -1));
    ASSERT_TRUE(gemm(DistCase::desc(pc.m, pc.n, pc.k),
                     {.a = a.p, .b = b.p, .c = c.p, .d = d.p, .alpha = pc.alpha, .beta = pc.beta},
                     opt_on(nullptr)));
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    whole = d.host();
  }
  for (bool all_reduce : {false, true})
    for (int chunks : {1, 3}) {
      std::vector<std::vector<float>> got(static_cast<std::size_t>(p));
      const auto errors = on_every_gpu(p, [&](int r, const Communicator& comm, cudaStream_t s) {
        const Range kr = ks[static_cast<std::size_t>(r)], mr = rows[static_cast<std::size_t>(r)];
        const Range out = all_reduce ? Range{0, pc.m} : mr;
        DeviceVec<std::uint16_t> a(pc.a_block(0, pc.m, kr.begin, kr.end)),
            b(pc.b_block(0, pc.n, kr.begin, kr.end));
        DeviceVec<float> c(pc.c_block(out.begin, out.end, 0, pc.n)), d(std::vector<float>(c.n, -1));
        const Status st = row_parallel(
            comm, DistCase::desc(pc.m, pc.n, kr.size()),
            {.a = a.p, .b = b.p, .c = c.p, .d = d.p, .alpha = pc.alpha, .beta = pc.beta},
            {.m_shards = m_sizes,
             .reduce = all_reduce ? RowReduce::AllReduce : RowReduce::ReduceScatter,
             .chunks = chunks},
            opt_on(s));
        cudaStreamSynchronize(s);
        got[static_cast<std::size_t>(r)] = d.host();
        return st;
      });
      for (int r = 0; r < p; ++r) {
        EXPECT_EQ(errors[static_cast<std::size_t>(r)], "") << "rank " << r;
        const Range out = all_reduce ? Range{0, pc.m} : rows[static_cast<std::size_t>(r)];
        const auto& g = got[static_cast<std::size_t>(r)];
        ASSERT_EQ(g.size(), static_cast<std::size_t>(out.size() * pc.n));
        for (std::int64_t i = out.begin; i < out.end; ++i)
          for (std::int64_t j = 0; j < pc.n; ++j) {
            const float x = g[static_cast<std::size_t>((i - out.begin) * pc.n + j)];
            const float y = whole[static_cast<std::size_t>(i * pc.n + j)];
            ASSERT_LE(std::fabs(double(x) - y), pc.gauge(i, j, p))
                << (all_reduce ? "all-reduce" : "reduce-scatter") << " chunks " << chunks
                << " rank " << r << " (" << i << "," << j << "): " << x << " vs " << y;
          }
      }
    }
}

}  // namespace
}  // namespace gemmkit::dist

int gemmkit_gpu_test_main(int argc, char** argv);
int main(int argc, char** argv) {
  if (gemmkit::cuda_available() && gemmkit::dist::gpus() < 2) {
    std::printf("%d visible GPU(s), 2 needed: skipped\n", gemmkit::dist::gpus());
    return 77;
  }
  return gemmkit_gpu_test_main(argc, argv);
}

#else
int main() {
  std::printf("built without CUDA or NCCL: skipped\n");
  return 77;
}
#endif
