// The one testbed: used by the tests, by `gemmkit verify` and by every bench row.
// It builds host operands with guard bands, fills them (seeded), runs a candidate, runs the
// fp64 reference, and compares by class:
//   exact     integer inputs with an i32 output;
//   gauge     |d - ref| <= eps_out*|ref| + (8 + sqrt(K)) * eps_acc * gauge,
//             gauge = |alpha| * sum_p |a_ip||b_pj| + |beta| * |c_ij|   (netlib DMMCH's idea);
//   similarity  fp8 / fp4 inputs: 1 - 2 sum(x y) / sum(x^2 + y^2) < 1e-3 over D (DeepGEMM's
//             calc_diff), x the candidate and y the reference; NaN / Inf must agree exactly;
// NaN in the result where the reference has none always fails, and so does a changed byte of
// A, B, C or of D's padding (the gaps between rows when ld > rows, and the guard band after).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gemmkit/gemm.hpp"

namespace gemmkit::bench {

struct ReferenceMatrix;

enum class Disposition { Passed, Incorrect, NotVerified, Failed };
std::string_view disposition_name(Disposition d) noexcept;

// Bytes of an operand over all batches (sub-byte types rounded up), without guard band.
std::size_t operand_bytes(const MatrixDesc& m, Extent e, std::int64_t batch) noexcept;

// Seeded U[lo, hi] rounded to the dtype (integers: uniform integers in [lo, hi]).
void fill_uniform(DType t, void* p, std::int64_t count, std::uint64_t seed, double lo = -1.0,
                  double hi = 1.0);

struct Compare {
  bool passed = true;
  std::int64_t checked = 0;
  std::int64_t mismatches = 0;
  double max_abs_err = 0.0;
  double max_err_over_bound = 0.0;  // < 1 passes
  std::string first_failure;        // "D(i,j) batch l: got x, want y (bound b)"
  std::string metric;               // "exact", "gauge", "similarity" or "probe"
  double similarity_diff = 0.0;     // the similarity metric's 1 - 2 sum(xy) / sum(x^2 + y^2)
  std::string reference;            // where the fp64 reference ran (see check_result)
};

// Unit roundoff of a type: 2^-53 f64, 2^-24 f32, 2^-11 f16, 2^-8 bf16, 2^-4 e4m3, 2^-3 e5m2,
// 2^-2 e2m1;
// 0 for integers (exact). The gauge bound's u_out and u_acc.
double unit_roundoff(DType t);

// Host operands of one case, with a guard band after each buffer.
struct HostCase {
  GemmDesc desc;  // lds defaulted
  double alpha = 1.0, beta = 0.0;
  std::vector<std::uint8_t> a, b, c, d;  // each: operand_bytes + kGuardBytes
  // The scales the descriptor asks for (ScaleDesc: their dtype's bytes; block and group scales
  // with their ld): fp8 operands with a scale are quantize_fp8'd from U[-1, 1] f32 values
  // (scales from the amax), e2m1 ones by quantize_fp4; integer weights B with group scales by
  // quantize_weights (batch 1); other scales are U[0.5, 2]. Other integer
  // weights B under floating A
  // (weight-only) take their whole range (i8 -127..127, i4 -8..7), group scales U[0.5, 2] / 64
  // and zero points (ScaleDesc::zero_points) integers in [-3, 3].
  std::vector<std::uint8_t> scale_a, scale_b, zero_b;
  // EpilogueDesc::bias: M (Row) or N (Column) values of bias_dtype, U[-1, 1] (seeded), with a
  // guard band after them; empty without a bias.
  std::vector<std::uint8_t> bias;
  // EpilogueDesc::scale_d: s_d, U[0.5, 2] (seeded); amax_d: where the candidate writes it.
  float out_scale = 1.0f, amax = 0.0f;
  const void* scale_ptr(bool is_a) const;  // null when that operand has no scale
  const void* zero_ptr() const;            // null without zero points
  const void* bias_ptr() const;            // null without a bias
  static constexpr std::size_t kGuardBytes = 64;
  static constexpr std::uint8_t kSentinel = 0x5A;

  // Builds buffers: A, B, C filled U[-1, 1] (seeded), D and all padding set to the sentinel;
  // C keeps the sentinel too when beta == 0 (never read). Scales and the bias as above.
  static HostCase make(const GemmDesc& desc, double alpha, double beta, std::uint64_t seed);
  GemmArgs args();           // pointers into the buffers (D separate from C)
  GemmArgs inputs() const;   // the same without D and amax_d (the reference's)
  GemmArgs args_in_place();  // D aliases C (needs matching C/D descriptors)
};

// Compares the candidate D (same layout as hc.d) with the reference computed from hc's
// inputs by reference_dgemm (bench/reference_blas.hpp). `before` is the D buffer as it was
// before the candidate ran (padding must match).
Compare compare_to_reference(const HostCase& hc, const std::vector<std::uint8_t>& d_candidate,
                             const std::vector<std::uint8_t>& d_before);
// The same against a reference already computed (host or GPU); `ref.gauge` must be filled
// unless the comparison is exact.
Compare compare_to_matrix(const HostCase& hc, const ReferenceMatrix& ref,
                          const std::vector<std::uint8_t>& d_candidate,
                          const std::vector<std::uint8_t>& d_before);

struct VerifyResult {
  Disposition disposition = Disposition::NotVerified;
  Status status;  // what gemm() returned
  Compare cmp;
  std::string note;
  // Wall seconds of the three parts: building the case (fills), the candidate's call (with
  // the copies to and from the device), the check (reference and comparison).
  double setup_s = 0, gemm_s = 0, check_s = 0;
};

// Probe-vector check for shapes too large for the fp64 reference (cost O(MN + NK + MK) per
// batch instead of O(MNK)): for random sign vectors t (seeded), compares D*t with
// alpha*A*(B*t) + beta*C*t under the summed gauge bound
//   |(D t)_i - ref_i| <= (eps_out + (8 + sqrt(K)) * eps_acc) * G_i,
//   G_i = |alpha| * (|A| (|B| |t|))_i + |beta| * (|C| |t|)_i   (>= sum_j |t_j| gauge_ij),
// then checks `samples` entries of D (the four corners of every batch and seeded random ones)
// against the fp64 reference with the per-element gauge bound, that every element of D is
// finite where the reference is (inputs are finite), and that D's padding is untouched.
// It catches systematic errors (wrong tile, wrong stride, missing K block) and, through the
// sampled entries, some isolated ones; metric "probe". It models no scales, bias or
// activation (resolve_check sends those problems to the full reference).
Compare probe_compare(const HostCase& hc, const std::vector<std::uint8_t>& d_candidate,
                      const std::vector<std::uint8_t>& d_before, std::uint64_t seed,
                      int samples = 256);

// The check every bench row and `gemmkit verify` go through:
//   Full   the fp64 reference on every element (compare_to_reference);
//   Probe  probe_compare (O(MN + NK + MK) per batch);
//   Auto   Full when 2*M*N*K*batch is at most `max_reference_flop`, Probe otherwise; always
//          Full with scales, a bias, an activation or the output's scale (the probe does not
//          model them).
// With `gpu_reference` (the candidate ran on CUDA) the full reference runs on the GPU
// (bench/reference_device.hpp) on fresh device copies of hc's inputs (never on the
// candidate's buffers, which it might have changed), and on the host only if that fails
// (Compare::reference says which) or the problem has scales, a bias, an activation or an
// output scale (the GPU reference computes none of them).
// Honours GEMMKIT_TEST_CORRUPT_RESULT (perturbs d_candidate(0,0) first; see verify_case).
enum class CheckMode { Full, Probe, Auto };
std::string_view check_mode_name(CheckMode m) noexcept;  // "full", "probe", "auto"
bool parse_check_mode(std::string_view s, CheckMode* out) noexcept;
struct CheckPolicy {
  CheckMode mode = CheckMode::Auto;
  double max_reference_flop = 2.0e9;
  std::uint64_t seed = 1;
};
// What a policy does with a problem: Full or Probe (never Auto).
CheckMode resolve_check(const GemmDesc& d, const CheckPolicy& policy) noexcept;
Compare check_result(const HostCase& hc, std::vector<std::uint8_t> d_candidate,
                     const std::vector<std::uint8_t>& d_before, const CheckPolicy& policy,
                     bool gpu_reference = false);

// True when GEMMKIT_TEST_CORRUPT_RESULT=1; then corrupt_d00 perturbs D(0,0) of batch 0.
bool corrupt_result_requested() noexcept;
void corrupt_d00(const GemmDesc& desc, std::vector<std::uint8_t>& d);

// Runs gemm() with `opt` on a seeded case (host buffers for the CPU backend, device copies
// for CUDA), then checks inputs untouched, padding untouched, and D against the reference
// through check_result (the GPU reference when the candidate ran on CUDA).
// Set GEMMKIT_TEST_CORRUPT_RESULT=1 in the environment to perturb one element of the
// candidate's result before the comparison: a test-only hook proving that the check can fail.
VerifyResult verify_case(const GemmDesc& desc, double alpha, double beta, const Options& opt,
                         std::uint64_t seed,
                         const CheckPolicy& policy = CheckPolicy{.mode = CheckMode::Full});

}  // namespace gemmkit::bench
