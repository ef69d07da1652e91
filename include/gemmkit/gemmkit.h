/* gemmkit C ABI. No exception crosses it.
 * Return value: 0 on success; the 1-based position of an illegal argument in netlib's XERBLA
 * numbering (1 transa, 2 transb, 3 M, 4 N, 5 K, 6 alpha, 7 A, 8 lda, 9 B, 10 ldb, 11 beta,
 * 12 C, 13 ldc; 21 for the layout, which netlib's xGEMM does not have); or a negative value,
 * -(gemmkit::StatusCode), for failures that are not about one argument.
 * On any non-zero return no output byte has changed. */
#ifndef GEMMKIT_GEMMKIT_H
#define GEMMKIT_GEMMKIT_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gemmkit_layout { GEMMKIT_ROW_MAJOR = 101, GEMMKIT_COL_MAJOR = 102 };   /* as CBLAS */
enum gemmkit_trans { GEMMKIT_NO_TRANS = 111, GEMMKIT_TRANS = 112, GEMMKIT_CONJ_TRANS = 113 };

/* CBLAS-shaped single and double precision GEMM on the default backend (Auto). */
int gemmkit_sgemm(int layout, int transa, int transb, int64_t m, int64_t n, int64_t k,
                  float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                  float beta, float* c, int64_t ldc);
int gemmkit_dgemm(int layout, int transa, int transb, int64_t m, int64_t n, int64_t k,
                  double alpha, const double* a, int64_t lda, const double* b, int64_t ldb,
                  double beta, double* c, int64_t ldc);

/* ---- The full problem description (mirrors gemmkit::GemmDesc and gemmkit::Options) ----
 * D = alpha * op(A) * op(B) + beta * C, `batch` times, each operand `batch_stride` elements
 * after the previous one (0 broadcasts A, B or C). ld = 0 means packed, as in the C++ API.
 * Callers set `abi_version` to GEMMKIT_ABI_VERSION; a mismatch is refused (-NotSupported). */
#define GEMMKIT_ABI_VERSION 3

enum gemmkit_dtype {
  GEMMKIT_DTYPE_DEFAULT = 0, /* compute only: f64 for f64 inputs, i32 for ints, else f32 */
  GEMMKIT_F64 = 1,
  GEMMKIT_F32 = 2,
  GEMMKIT_F16 = 3,
  GEMMKIT_BF16 = 4,
  GEMMKIT_E4M3 = 5,
  GEMMKIT_E5M2 = 6,
  GEMMKIT_I8 = 7,
  GEMMKIT_I4 = 8,
  GEMMKIT_I32 = 9,
  GEMMKIT_E8M0 = 10,
  GEMMKIT_E2M1 = 11 /* fp4, two a byte (low nibble first), as GEMMKIT_I4 */
};
enum gemmkit_backend {
  GEMMKIT_BACKEND_AUTO = 0,
  GEMMKIT_BACKEND_CPU = 1,
  GEMMKIT_BACKEND_CUDA = 2
};
/* The scheduler mode (gemmkit::Schedule): the planner's choice, whole output tiles, K cut into
 * split_k pieces (0: the planner's count), or stream-K. A mode the chosen kernel lacks, or one
 * that contradicts split_k, is refused naming both. */
enum gemmkit_schedule {
  GEMMKIT_SCHEDULE_AUTO = 0,
  GEMMKIT_SCHEDULE_DATA_PARALLEL = 1,
  GEMMKIT_SCHEDULE_SPLIT_K = 2,
  GEMMKIT_SCHEDULE_STREAM_K = 3
};

typedef struct gemmkit_matrix {
  int32_t dtype;  /* enum gemmkit_dtype */
  int32_t layout; /* GEMMKIT_ROW_MAJOR or GEMMKIT_COL_MAJOR */
  int64_t ld;
  int64_t batch_stride;
} gemmkit_matrix;

typedef struct gemmkit_problem {
  int32_t abi_version;      /* GEMMKIT_ABI_VERSION */
  int32_t trans_a, trans_b; /* GEMMKIT_NO_TRANS / GEMMKIT_TRANS */
  int32_t compute;          /* enum gemmkit_dtype; GEMMKIT_DTYPE_DEFAULT derives it */
  int64_t m, n, k;
  int64_t batch; /* 1 for one GEMM */
  gemmkit_matrix a, b, c, d;
  /* options */
  int32_t backend;        /* enum gemmkit_backend */
  int32_t threads;        /* CPU threads; 0 = all cores */
  int32_t split_k;        /* 0 = the planner's choice */
  int32_t allow_fallback; /* nonzero: misaligned operands may take a slower path */
  const char* kernel;     /* a registered kernel by name, or NULL for the planner */
  void* stream;           /* cudaStream_t for the CUDA backend (NULL: the default stream) */
  void* workspace;        /* device memory for CUDA, host memory for the CPU */
  size_t workspace_bytes;
  int32_t schedule; /* enum gemmkit_schedule (added in ABI version 2) */
  /* nonzero: each row of D gets the same bits whatever M is (gemmkit::Options::batch_invariant:
   * the plan of M = 4096, data-parallel, M-invariant kernels; split_k > 1 or a split-K /
   * stream-K schedule is refused). Was `reserved` (0) before ABI version 3. */
  int32_t batch_invariant;
} gemmkit_problem;

/* The outcome of a call. `position` is what the int return value says (0, the argument's
 * position, or -code); `arg_name` is the argument's name ("lda", "stride_b", ...; "" for
 * none); `message` is the human-readable text with file:line. Both strings are the library's
 * and stay valid until the next call on this thread. */
typedef struct gemmkit_status {
  int32_t code;     /* gemmkit::StatusCode: 0 Success, 1 InvalidValue, 2 NotSupported, ... */
  int32_t arg;      /* gemmkit::Arg: 1-based argument position (netlib numbering), 0 for none */
  int32_t position; /* the return value */
  int32_t reserved;
  const char* arg_name;
  const char* message;
} gemmkit_status;

int gemmkit_abi_version(void);

/* D = alpha * op(A) * op(B) + beta * C with the full description. Return value as above;
 * `status` (may be NULL) receives the details. On any non-zero return no output byte has
 * changed and nothing was launched. */
int gemmkit_gemm(const gemmkit_problem* p, const void* a, const void* b, const void* c, void* d,
                 double alpha, double beta, gemmkit_status* status);
/* Validates the problem and asks the planner for a kernel; touches no memory. */
int gemmkit_can_implement(const gemmkit_problem* p, gemmkit_status* status);
/* Bytes of workspace the planned kernel needs (0 for most) into *bytes. */
int gemmkit_workspace_size(const gemmkit_problem* p, size_t* bytes, gemmkit_status* status);

/* ---- Fused epilogue and scales (mirror gemmkit::EpilogueDesc and gemmkit::ScaleDesc) ----
 * D = act(alpha * sum_p (op(A)_ip sa) (op(B)_pj sb) + bias + beta * C); the enums' values are
 * those of the C++ enums. A zero-initialized gemmkit_fusion is the plain GEMM. */
enum gemmkit_bias_mode { GEMMKIT_BIAS_NONE = 0, GEMMKIT_BIAS_ROW = 1, GEMMKIT_BIAS_COLUMN = 2 };
enum gemmkit_activation {
  GEMMKIT_ACT_NONE = 0,
  GEMMKIT_ACT_RELU = 1,
  GEMMKIT_ACT_GELU_ERF = 2,
  GEMMKIT_ACT_GELU_TANH = 3,
  GEMMKIT_ACT_SILU = 4
};
enum gemmkit_scale_mode {
  GEMMKIT_SCALE_NONE = 0,
  GEMMKIT_SCALE_TENSOR = 1,        /* one fp32 */
  GEMMKIT_SCALE_ROW = 2,           /* A only: M fp32, one per row of op(A) */
  GEMMKIT_SCALE_COLUMN = 3,        /* B only: N fp32, one per column of op(B) */
  GEMMKIT_SCALE_BLOCK_1X128 = 4,   /* A: M x K/128 fp32; B: K/128 x N (K % 128 == 0) */
  GEMMKIT_SCALE_BLOCK_128X128 = 5, /* A: ceil(M/128) x K/128; B: K/128 x ceil(N/128) */
  GEMMKIT_SCALE_GROUP = 6,         /* B only (integer weights): K/group x N, w = (q - z) * s */
  GEMMKIT_SCALE_MX = 7             /* fp8 / fp4 A, B: one e8m0 per 32 along K (MXFP8, MXFP4) */
};
typedef struct gemmkit_scale {
  int32_t mode;        /* enum gemmkit_scale_mode */
  int32_t layout;      /* of a block / group scale matrix: GEMMKIT_ROW_MAJOR / COL_MAJOR; 0 = col */
  int64_t ld;          /* of a block / group scale matrix; 0 = packed */
  int32_t dtype;       /* of the scales (and zero points): GEMMKIT_DTYPE_DEFAULT = f32; f16 / bf16
                          for groups */
  int32_t group;       /* GEMMKIT_SCALE_GROUP: 32, 64 or 128 */
  int32_t zero_points; /* nonzero: `zero` holds the group zero points, laid out as the scales */
  int32_t reserved;
  const void* values;
  const void* zero;
} gemmkit_scale;
/* The output's scaling (gemmkit::EpilogueDesc::scale_d / amax_d): D = round(v * *scale_d), fp8 D
 * saturating; *amax_d = max |v| before the scale. */
enum gemmkit_output_flags { GEMMKIT_SCALE_D = 1, GEMMKIT_AMAX_D = 2 };
typedef struct gemmkit_fusion {
  int32_t bias_mode;    /* enum gemmkit_bias_mode */
  int32_t bias_dtype;   /* enum gemmkit_dtype; GEMMKIT_DTYPE_DEFAULT = f32 */
  int32_t activation;   /* enum gemmkit_activation */
  int32_t output_flags; /* GEMMKIT_SCALE_D | GEMMKIT_AMAX_D; 0: neither, and the two pointers
                           at the end are not read (so a struct without them stays valid) */
  const void* bias;
  gemmkit_scale scale_a, scale_b;
  const float* scale_d; /* GEMMKIT_SCALE_D: one f32, D = round(v * scale_d[0]) */
  float* amax_d;        /* GEMMKIT_AMAX_D: one f32, written */
} gemmkit_fusion;

/* gemmkit_gemm with a fused epilogue and scales (`fusion` NULL: as gemmkit_gemm). A bad value
 * in `fusion` returns its position (31 epilogue, 32 bias, 33 bias dtype, 34 scale_a, 35
 * scale_b, 36 scale_d, 37 amax_d; output_flags with other bits: 31). */
int gemmkit_gemm_fused(const gemmkit_problem* p, const gemmkit_fusion* fusion, const void* a,
                       const void* b, const void* c, void* d, double alpha, double beta,
                       gemmkit_status* status);
int gemmkit_can_implement_fused(const gemmkit_problem* p, const gemmkit_fusion* fusion,
                                gemmkit_status* status);
/* gemmkit::quantize_fp8 (gemmkit/quantize.hpp): quantizes operand A (`operand` 0) or B (1) of
 * the problem, whose dtype is e4m3 or e5m2, from `src` (f32 / bf16 / f16 as `src_desc` says,
 * the operand's stored shape) into `dst`, with the scales fusion->scale_a / scale_b describe
 * written to `scales` (s = amax / fmax per group). */
int gemmkit_quantize_fp8(const gemmkit_problem* p, const gemmkit_fusion* fusion, int operand,
                         const gemmkit_matrix* src_desc, const void* src, void* dst, void* scales,
                         gemmkit_status* status);
/* gemmkit::quantize_fp4: the same for an e2m1 operand (MXFP4 with GEMMKIT_SCALE_MX). */
int gemmkit_quantize_fp4(const gemmkit_problem* p, const gemmkit_fusion* fusion, int operand,
                         const gemmkit_matrix* src_desc, const void* src, void* dst, void* scales,
                         gemmkit_status* status);
/* gemmkit::quantize_weights: integer weights B (i8 / i4) of the problem from `src`, with the
 * group scales fusion->scale_b describes (GEMMKIT_SCALE_GROUP) written to `scales` and, when its
 * zero_points is set, the zero points to `zeros`. */
int gemmkit_quantize_weights(const gemmkit_problem* p, const gemmkit_fusion* fusion,
                             const gemmkit_matrix* src_desc, const void* src, void* dst,
                             void* scales, void* zeros, gemmkit_status* status);

/* ---- The model as JSON (the objects `gemmkit ledger --json`, `gemmkit explain --json` and
 * `gemmkit kernels` describe). *json receives a string owned by the library, valid until the
 * next call of the same function on this thread. */
/* request: a JSON object with any of "machine" (default "h200"), "tile", "stages", "threads",
 * "split_k", "l0k", "count_reads", "ascend", "variant", "groups" ([[m,n,k],...]); NULL = {}. */
int gemmkit_ledger_json(const gemmkit_problem* p, double beta, const char* request,
                        const char** json, gemmkit_status* status);
/* The return value and `status` are the plan's (as gemmkit_can_implement); *json is filled
 * either way once the struct is readable, its "status" saying the same in words. */
int gemmkit_explain_json(const gemmkit_problem* p, double beta, const char** json,
                         gemmkit_status* status);
/* A JSON array of {name, backend, role, config, priority, variant}; pattern NULL = "all". */
int gemmkit_kernels_json(const char* pattern, const char** json, gemmkit_status* status);

/* Message of the last failed call on this thread ("" after a success). */
const char* gemmkit_last_error(void);
/* Name of a status code (0 = "Success"). */
const char* gemmkit_status_string(int code);

#ifdef __cplusplus
}
#endif
#endif /* GEMMKIT_GEMMKIT_H */
