// The interconnect term (src/ledger/interconnect.hpp): ring collectives monotonic in bytes and in
// P, P = 1 communicates nothing, all-reduce costs a reduce-scatter plus an all-gather; the
// max-plus pipeline lies between the larger stage and the sum; a TP prediction with one chunk is
// the unoverlapped sum, with more it is never below the larger of its parts; the machine's link
// round-trips through JSON and the builtin H100 / H200 have the nominal NVLink4 figure.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ledger/interconnect.hpp"

namespace gemmkit::ledger {
namespace {

const Link kNvlink{450e9, 1e-6};

GemmDesc bf16(std::int64_t m, std::int64_t n, std::int64_t k) {
  GemmDesc d{.m = m, .n = n, .k = k};
  d.a = {DType::BF16, Layout::RowMajor, 0, 0};
  d.b = {DType::BF16, Layout::ColMajor, 0, 0};
  d.c = d.d = {DType::BF16, Layout::RowMajor, 0, 0};
  return with_default_lds(d);
}

TEST(LedgerInterconnect, RingCollectives) {
  for (Collective c : {Collective::AllGather, Collective::ReduceScatter, Collective::AllReduce}) {
    EXPECT_EQ(collective_s(c, 1e9, 1, kNvlink), 0) << "one GPU communicates nothing";
    EXPECT_EQ(collective_s(c, 0, 8, kNvlink), 0);
    double prev = 0;
    for (double bytes = 1e3; bytes <= 1e10; bytes *= 10) {  // monotonic in bytes
      const double t = collective_s(c, bytes, 4, kNvlink);
      EXPECT_GT(t, prev);
      prev = t;
    }
    for (int p = 2; p < 8; ++p)  // more GPUs: more steps, each no smaller than B / P / bw
      EXPECT_GE(collective_s(c, 1e8, p + 1, kNvlink), collective_s(c, 1e8, p, kNvlink));
    EXPECT_TRUE(std::isinf(collective_s(c, 1e6, 2, Link{})));
  }
  // 8 GPUs, 1 GB gathered: 7 steps of 125 MB at 450 GB/s plus 7 latencies.
  EXPECT_NEAR(collective_s(Collective::AllGather, 1e9, 8, kNvlink), 7 * (1e-6 + 1.25e8 / 450e9),
              1e-12);
  EXPECT_DOUBLE_EQ(collective_s(Collective::AllReduce, 1e9, 8, kNvlink),
                   collective_s(Collective::ReduceScatter, 1e9, 8, kNvlink) +
                       collective_s(Collective::AllGather, 1e9, 8, kNvlink));
}

TEST(LedgerInterconnect, PipelineBounds) {
  const std::vector<std::vector<double>> as = {{1}, {1, 1, 1}, {3, 1, 2, 5}, {0.5, 4, 0.1}},
                                         bs = {{2}, {1, 1, 1}, {1, 4, 1, 1}, {3, 0.2, 0.2}};
  for (std::size_t i = 0; i < as.size(); ++i) {
    double sa = 0, sb = 0;
    for (double x : as[i]) sa += x;
    for (double x : bs[i]) sb += x;
    const double t = pipeline_s(as[i], bs[i]);
    EXPECT_GE(t, std::max(sa, sb) - 1e-12);
    EXPECT_LE(t, sa + sb + 1e-12);
  }
  const std::vector<double> a{1, 1, 1}, b{1, 1, 1};
  EXPECT_DOUBLE_EQ(pipeline_s(a, b), 4) << "3 equal chunks: fill one, then overlap";
}

TEST(LedgerInterconnect, TpPredictions) {
  const Machine& h100 = *find_machine("h100-sxm");
  for (TpOp op : {TpOp::Column, TpOp::Row})
    for (bool all_reduce : {false, true})
      for (int gpus : {1, 2, 4, 8})
        for (int chunks : {1, 2, 4, 8}) {
          const TpPrediction p =
              predict_tp(op, bf16(8192, 8192, 8192), 0, gpus, chunks, all_reduce, h100);
          SCOPED_TRACE(::testing::Message() << int(op) << " P=" << gpus << " chunks=" << chunks);
          EXPECT_GT(p.gemm_s, 0);
          if (gpus == 1) {
            EXPECT_EQ(p.comm_s, 0);
          } else {
            EXPECT_GT(p.comm_s, 0);
          }
          EXPECT_DOUBLE_EQ(p.unoverlapped_s, p.gemm_s + p.comm_s);
          ASSERT_EQ(p.chunk_gemm_s.size(), static_cast<std::size_t>(chunks));
          double sg = 0, sc = 0;
          for (double x : p.chunk_gemm_s) sg += x;
          for (double x : p.chunk_comm_s) sc += x;
          EXPECT_GE(p.overlapped_s, std::max(sg, sc) - 1e-15) << "never below the larger part";
          EXPECT_LE(p.overlapped_s, sg + sc + 1e-15);
          if (chunks == 1) {
            EXPECT_DOUBLE_EQ(p.overlapped_s, p.unoverlapped_s);
          }
          EXPECT_DOUBLE_EQ(p.gain, p.unoverlapped_s / p.overlapped_s);
        }
  // Column: each GPU computes N / P; row: K / P. The gathered A is M x K bf16.
  const TpPrediction c = predict_tp(TpOp::Column, bf16(4096, 1000, 512), 0, 4, 1, false, h100);
  EXPECT_EQ(c.local.n, 250);
  EXPECT_EQ(c.comm_bytes, 4096.0 * 512 * 2);
  const TpPrediction r = predict_tp(TpOp::Row, bf16(4096, 1000, 514), 0, 4, 1, true, h100);
  EXPECT_EQ(r.local.k, 129);
  EXPECT_EQ(r.collective, Collective::AllReduce);
  // A caller's GEMM model is used as given.
  const TpPrediction g = predict_tp(TpOp::Row, bf16(64, 64, 64), 0, 2, 4, false, h100,
                                    [](const GemmDesc& d) { return 1e-9 * double(d.m); });
  EXPECT_DOUBLE_EQ(g.gemm_s, 64e-9);
}

TEST(LedgerInterconnect, MachineData) {
  for (const char* name : {"h100-sxm", "h200", "h200-measured"}) {
    const Machine& m = *find_machine(name);
    EXPECT_EQ(m.interconnect_bytes_per_s, 450e9) << name;
    EXPECT_GT(m.interconnect_latency_s, 0) << name;
  }
  Machine m = *find_machine("h200");
  m.interconnect_bytes_per_s = 123e9;
  m.interconnect_latency_s = 2e-6;
  const Machine back = machine_from_json_text(machine_to_json(m));
  EXPECT_EQ(back.interconnect_bytes_per_s, 123e9);
  EXPECT_EQ(back.interconnect_latency_s, 2e-6);
}

}  // namespace
}  // namespace gemmkit::ledger
