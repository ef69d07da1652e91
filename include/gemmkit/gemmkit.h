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

/* Message of the last failed call on this thread ("" after a success). */
const char* gemmkit_last_error(void);
/* Name of a status code (0 = "Success"). */
const char* gemmkit_status_string(int code);

#ifdef __cplusplus
}
#endif
#endif /* GEMMKIT_GEMMKIT_H */
