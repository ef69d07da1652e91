// Tensor-parallel GEMM simulated on the CPU: P ranks as plain loops over their shards, each
// calling the CPU gemm() on its own copies of its operands, with a host gather (column) and a
// host reduce-scatter / all-reduce (row) written from the same partition (src/dist/partition.hpp)
// and row slicing (src/dist/slice.hpp) as the NCCL operations. The assembled D is checked
// against the single GEMM of the whole problem: bitwise for column-parallel (the same rows, the
// same kernel: batch-invariant), and for row-parallel within the gauge bound
// |dD| <= (K + P + 2) eps (|alpha| sum |a||b| + |beta||c|), since the sum's order changes; with
// small-integer operands (exact in f32) bitwise for both. No NCCL, no GPU: the partition math.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "dist/partition.hpp"
#include "dist/slice.hpp"
#include "gemmkit/gemm.hpp"
#include "support/oracle.hpp"

namespace gemmkit::dist {
namespace {

using Mat = std::vector<float>;

struct Problem {
  std::int64_t m, n, k;
  int p, chunks;
  bool unequal, integers;
  double alpha, beta;
  Mat a, b, c;  // A M x K row-major, B K x N column-major, C M x N row-major
};

GemmDesc desc_of(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t lda, std::int64_t ldb,
                 std::int64_t ldc) {
  GemmDesc d{.m = m, .n = n, .k = k};
  d.a = {DType::F32, Layout::RowMajor, lda, 0};
  d.b = {DType::F32, Layout::ColMajor, ldb, 0};
  d.c = {DType::F32, Layout::RowMajor, ldc, 0};
  d.d = d.c;
  return with_default_lds(d);
}

Options cpu() {
  Options o;
  o.backend = Backend::Cpu;
  o.batch_invariant = true;  // the same kernel for every M: a chunk's rows equal the whole's
  return o;
}

// The single GEMM of the whole problem.
Mat single(const Problem& pb) {
  Mat d(static_cast<std::size_t>(pb.m * pb.n), -1.0f);
  const Status s = gemm(desc_of(pb.m, pb.n, pb.k, pb.k, pb.k, pb.n),
                        {.a = pb.a.data(),
                         .b = pb.b.data(),
                         .c = pb.c.data(),
                         .d = d.data(),
                         .alpha = pb.alpha,
                         .beta = pb.beta},
                        cpu());
  EXPECT_TRUE(s) << to_string(s);
  return d;
}

// Shards of `total` over P: equal, or unequal with some empty ones.
std::vector<Range> shards_of(std::int64_t total, int p, bool unequal, std::mt19937_64& rng) {
  if (!unequal) return equal_ranges(total, p);
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(p), 0);
  for (std::int64_t i = 0; i < total; ++i) ++sizes[rng() % (rng() % 3 == 0 ? 1 : p)];
  return ranges_of_sizes(sizes);
}

// Column-parallel: rank r holds rows shards[r] of A and columns cols[r] of B and C; gathers A
// chunk by chunk and multiplies each chunk; the ranks' column blocks of D are assembled.
Mat column_parallel_sim(const Problem& pb, std::mt19937_64& rng) {
  const std::vector<Range> shards = shards_of(pb.m, pb.p, pb.unequal, rng);
  const std::vector<Range> cols = shards_of(pb.n, pb.p, pb.unequal, rng);
  std::vector<Mat> a_shard(static_cast<std::size_t>(pb.p));
  for (int r = 0; r < pb.p; ++r) {
    const Range s = shards[static_cast<std::size_t>(r)];
    a_shard[static_cast<std::size_t>(r)].assign(pb.a.begin() + s.begin * pb.k,
                                                pb.a.begin() + s.end * pb.k);
  }
  Mat out(static_cast<std::size_t>(pb.m * pb.n), -2.0f);
  for (int r = 0; r < pb.p; ++r) {
    const Range cb = cols[static_cast<std::size_t>(r)];
    const std::int64_t nl = cb.size();
    Mat b(pb.b.begin() + cb.begin * pb.k, pb.b.begin() + cb.end * pb.k);  // K x nl
    Mat c(static_cast<std::size_t>(pb.m * nl)), d(static_cast<std::size_t>(pb.m * nl), NAN);
    for (std::int64_t i = 0; i < pb.m; ++i)
      for (std::int64_t j = 0; j < nl; ++j)
        c[static_cast<std::size_t>(i * nl + j)] =
            pb.c[static_cast<std::size_t>(i * pb.n + cb.begin + j)];
    Mat all(static_cast<std::size_t>(pb.m * pb.k), NAN);  // this rank's gathered A
    const Call whole{desc_of(pb.m, nl, pb.k, pb.k, pb.k, std::max<std::int64_t>(nl, 1)),
                     {.a = all.data(),
                      .b = b.data(),
                      .c = c.data(),
                      .d = d.data(),
                      .alpha = pb.alpha,
                      .beta = pb.beta}};
    for (const Range& chunk : chunk_plan(pb.m, pb.chunks)) {
      for (const Piece& p : pieces_of(chunk, shards))  // the gather: a broadcast per piece
        std::copy_n(a_shard[static_cast<std::size_t>(p.rank)].begin() + p.local * pb.k,
                    p.rows.size() * pb.k, all.begin() + p.rows.begin * pb.k);
      const Call part = rows_of(whole, chunk);
      const Status s = gemm(part.desc, part.args, cpu());
      EXPECT_TRUE(s) << to_string(s);
    }
    // The rank's single GEMM (the whole A, its column block): the same bits.
    Mat ref(d.size(), -3.0f);
    Call single = whole;
    single.args.a = pb.a.data();
    single.args.d = ref.data();
    const Status s = gemm(single.desc, single.args, cpu());
    EXPECT_TRUE(s) << to_string(s);
    EXPECT_TRUE(d.empty() || std::memcmp(d.data(), ref.data(), d.size() * sizeof(float)) == 0)
        << "rank " << r << " of " << pb.p << " differs from its single GEMM";
    for (std::int64_t i = 0; i < pb.m; ++i)
      for (std::int64_t j = 0; j < nl; ++j)
        out[static_cast<std::size_t>(i * pb.n + cb.begin + j)] =
            d[static_cast<std::size_t>(i * nl + j)];
  }
  return out;
}

// Row-parallel: rank r holds columns ks[r] of A and rows ks[r] of B; its partial (M x N) gets
// beta C on the rows it owns; the partials are summed chunk by chunk into the owners' rows
// (reduce-scatter) or into every rank's M x N (all-reduce: rank 0 owns every row's beta C).
Mat row_parallel_sim(const Problem& pb, bool all_reduce, std::mt19937_64& rng) {
  const std::vector<Range> ks = shards_of(pb.k, pb.p, pb.unequal, rng);
  const std::vector<Range> shards = shards_of(pb.m, pb.p, pb.unequal, rng);
  const std::vector<Range> owners =
      all_reduce ? ranges_of_sizes(std::vector<std::int64_t>{pb.m}) : shards;
  const std::size_t mn = static_cast<std::size_t>(pb.m * pb.n);
  std::vector<Mat> partial(static_cast<std::size_t>(pb.p), Mat(mn, NAN));
  std::vector<Mat> d_local(static_cast<std::size_t>(pb.p));
  for (int r = 0; r < pb.p; ++r) {
    const Range kr = ks[static_cast<std::size_t>(r)];
    // Own copies: A_r M x k_r (row-major, packed), B_r k_r x N (column-major, ld k_r).
    const std::int64_t kl = kr.size(), ldk = std::max<std::int64_t>(kl, 1);
    Mat a(static_cast<std::size_t>(pb.m * kl)), b(static_cast<std::size_t>(kl * pb.n));
    for (std::int64_t i = 0; i < pb.m; ++i)
      for (std::int64_t p = 0; p < kl; ++p)
        a[static_cast<std::size_t>(i * kl + p)] =
            pb.a[static_cast<std::size_t>(i * pb.k + kr.begin + p)];
    for (std::int64_t j = 0; j < pb.n; ++j)
      for (std::int64_t p = 0; p < kl; ++p)
        b[static_cast<std::size_t>(j * kl + p)] =
            pb.b[static_cast<std::size_t>(j * pb.k + kr.begin + p)];
    Mat& part = partial[static_cast<std::size_t>(r)];
    const Call whole{desc_of(pb.m, pb.n, kl, ldk, ldk, pb.n),
                     {.a = a.data(),
                      .b = b.data(),
                      .c = nullptr,
                      .d = part.data(),
                      .alpha = pb.alpha,
                      .beta = 0}};
    for (const Range& chunk : chunk_plan(pb.m, pb.chunks))
      for (const Piece& p : pieces_of(chunk, owners)) {
        Call c = rows_of(whole, p.rows);
        if (p.rank == r && pb.beta != 0) {  // beta C once, by the owner (C given whole here)
          c.args.beta = pb.beta;
          c.args.c = pb.c.data() + p.rows.begin * pb.n;
        }
        const Status s = gemm(c.desc, c.args, cpu());
        EXPECT_TRUE(s) << to_string(s);
      }
    const Range mine = all_reduce ? Range{0, pb.m} : shards[static_cast<std::size_t>(r)];
    d_local[static_cast<std::size_t>(r)].assign(static_cast<std::size_t>(mine.size() * pb.n), NAN);
  }
  // The collective, chunk by chunk: each piece summed over the ranks (rank order) into its owner.
  for (const Range& chunk : chunk_plan(pb.m, pb.chunks)) {
    const std::vector<Piece> pieces =
        all_reduce
            ? std::vector<Piece>(static_cast<std::size_t>(pb.p), Piece{0, chunk, chunk.begin})
            : pieces_of(chunk, shards);
    for (std::size_t q = 0; q < pieces.size(); ++q) {
      const Piece& p = pieces[q];
      const int to = all_reduce ? static_cast<int>(q) : p.rank;
      for (std::int64_t i = 0; i < p.rows.size() * pb.n; ++i) {
        float sum = 0;
        for (int r = 0; r < pb.p; ++r)
          sum += partial[static_cast<std::size_t>(r)]
                        [static_cast<std::size_t>(p.rows.begin * pb.n + i)];
        d_local[static_cast<std::size_t>(to)][static_cast<std::size_t>(p.local * pb.n + i)] = sum;
      }
    }
  }
  // Every all-reduce rank holds the same M x N; the reduce-scatter ranks' rows are stacked.
  Mat out;
  for (int r = 0; r < pb.p; ++r) {
    if (all_reduce && r > 0) {
      EXPECT_EQ(d_local[static_cast<std::size_t>(r)], d_local[0]) << "all-reduce rank " << r;
      continue;
    }
    out.insert(out.end(), d_local[static_cast<std::size_t>(r)].begin(),
               d_local[static_cast<std::size_t>(r)].end());
  }
  return out;
}

// The gauge bound of one element of the row-parallel result.
double gauge(const Problem& pb, std::int64_t i, std::int64_t j) {
  double s = 0;
  for (std::int64_t p = 0; p < pb.k; ++p)
    s += std::fabs(pb.a[static_cast<std::size_t>(i * pb.k + p)]) *
         std::fabs(pb.b[static_cast<std::size_t>(j * pb.k + p)]);
  const double c = std::fabs(pb.c[static_cast<std::size_t>(i * pb.n + j)]);
  return (pb.k + pb.p + 2) * FLT_EPSILON * (std::fabs(pb.alpha) * s + std::fabs(pb.beta) * c);
}

Problem make(std::mt19937_64& rng) {
  Problem pb{};
  const std::int64_t sizes[] = {1, 2, 3, 5, 9, 17, 31, 64, 65, 127};
  pb.m = sizes[rng() % 10];
  pb.n = sizes[rng() % 10];
  pb.k = sizes[rng() % 10];
  pb.p = 1 + static_cast<int>(rng() % 8);
  pb.chunks = 1 + static_cast<int>(rng() % 5);
  pb.unequal = rng() % 2;
  pb.integers = rng() % 3 == 0;
  const double alphas[] = {1, 0.7, 0, -2}, betas[] = {0, 1, 1.3};
  pb.alpha = alphas[rng() % 4];
  pb.beta = betas[rng() % 3];
  std::uniform_real_distribution<float> u(-1, 1);
  auto fill = [&](Mat& x, std::int64_t n) {
    x.resize(static_cast<std::size_t>(n));
    for (float& v : x)
      v = pb.integers ? static_cast<float>(static_cast<int>(rng() % 7) - 3) : u(rng);
  };
  fill(pb.a, pb.m * pb.k);
  fill(pb.b, pb.k * pb.n);
  fill(pb.c, pb.m * pb.n);
  if (pb.integers) pb.alpha = std::round(pb.alpha), pb.beta = std::round(pb.beta);
  return pb;
}

std::string what(const Problem& pb) {
  char s[160];
  std::snprintf(s, sizeof s, "m=%lld n=%lld k=%lld P=%d chunks=%d %s %s alpha=%g beta=%g",
                (long long)pb.m, (long long)pb.n, (long long)pb.k, pb.p, pb.chunks,
                pb.unequal ? "unequal" : "equal", pb.integers ? "integers" : "reals", pb.alpha,
                pb.beta);
  return s;
}

// Each rank's D is bitwise its single GEMM of the same column block (inside the simulation);
// the assembled D is the whole problem's single GEMM exactly for integers, else within the gauge
// bound (a narrower N may take another kernel: the CPU's bits depend on N, not on M).
TEST(DistSimulated, ColumnParallelIsBitwiseTheSingleGemm) {
  const std::uint64_t seed = test::test_seed();
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 150; ++iter) {
    const Problem pb = make(rng);
    const Mat ref = single(pb), got = column_parallel_sim(pb, rng);
    ASSERT_FALSE(HasFailure()) << what(pb) << " (seed " << seed << ")";
    ASSERT_EQ(got.size(), ref.size());
    for (std::int64_t i = 0; i < pb.m; ++i)
      for (std::int64_t j = 0; j < pb.n; ++j) {
        const std::size_t e = static_cast<std::size_t>(i * pb.n + j);
        if (pb.integers)
          ASSERT_EQ(got[e], ref[e]) << what(pb) << " (" << i << "," << j << ")";
        else
          ASSERT_LE(std::fabs(double(got[e]) - ref[e]), gauge(pb, i, j))
              << what(pb) << " (" << i << "," << j << "): " << got[e] << " vs " << ref[e]
              << " (seed " << seed << ")";
      }
  }
}

TEST(DistSimulated, RowParallelWithinTheGaugeBound) {
  const std::uint64_t seed = test::test_seed();
  std::mt19937_64 rng(seed + 1);
  for (int iter = 0; iter < 150; ++iter) {
    const Problem pb = make(rng);
    for (bool all_reduce : {false, true}) {
      const Mat ref = single(pb), got = row_parallel_sim(pb, all_reduce, rng);
      ASSERT_EQ(got.size(), ref.size()) << what(pb);
      for (std::int64_t i = 0; i < pb.m; ++i)
        for (std::int64_t j = 0; j < pb.n; ++j) {
          const std::size_t e = static_cast<std::size_t>(i * pb.n + j);
          ASSERT_FALSE(std::isnan(got[e])) << what(pb) << " (" << i << "," << j << ") not written";
          if (pb.integers)  // exact in f32 whatever the order
            ASSERT_EQ(got[e], ref[e]) << what(pb) << " (" << i << "," << j << ")";
          else
            ASSERT_LE(std::fabs(double(got[e]) - ref[e]), gauge(pb, i, j))
                << what(pb) << (all_reduce ? " all-reduce" : " reduce-scatter") << " (" << i << ","
                << j << "): " << got[e] << " vs " << ref[e] << " (seed " << seed << ")";
        }
    }
  }
}

}  // namespace
}  // namespace gemmkit::dist
