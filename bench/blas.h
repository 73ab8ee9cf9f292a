/* The OpenBLAS calls of qmm-compare and qmm-bench-peers, declared here so
 * that whichever cblas.h the system's alternatives point to (netlib's lacks
 * openblas_set_num_threads) will do. OpenBLAS's LP64 interface: sizes are
 * int. */
#ifndef QMM_BENCH_BLAS_H
#define QMM_BENCH_BLAS_H

enum { BENCH_CBLAS_ROW_MAJOR = 101, BENCH_CBLAS_NO_TRANS = 111 };

void cblas_dgemm(int order, int transa, int transb, int m, int n, int k, double alpha,
                 const double *a, int lda, const double *b, int ldb, double beta, double *c,
                 int ldc);
void cblas_sgemm(int order, int transa, int transb, int m, int n, int k, float alpha,
                 const float *a, int lda, const float *b, int ldb, float beta, float *c,
                 int ldc);
void openblas_set_num_threads(int num_threads);

#endif
