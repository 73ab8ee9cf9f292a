/* The OpenBLAS calls qmm-compare makes, declared here as qmm-bench-peers
 * declares them, so that whichever cblas.h the system's alternatives point
 * to (netlib's lacks openblas_set_num_threads) will do. OpenBLAS's LP64
 * interface: sizes are int. */
#ifndef QMM_COMPARE_BLAS_H
#define QMM_COMPARE_BLAS_H

enum { COMPARE_CBLAS_ROW_MAJOR = 101, COMPARE_CBLAS_NO_TRANS = 111 };

void cblas_dgemm(int order, int transa, int transb, int m, int n, int k, double alpha,
                 const double *a, int lda, const double *b, int ldb, double beta, double *c,
                 int ldc);
void cblas_sgemm(int order, int transa, int transb, int m, int n, int k, float alpha,
                 const float *a, int lda, const float *b, int ldb, float beta, float *c,
                 int ldc);
void openblas_set_num_threads(int num_threads);

#endif
