/*
 * The exactness suite: one set of shapes, layouts and values that every path
 * to a kernel (the driver with a given kernel, the public API) must compute
 * bit-exactly like the naive reference.
 */
#ifndef QMM_EXACT_SUITE_H
#define QMM_EXACT_SUITE_H

#include <stddef.h>
#include <stdint.h>

#include "qmm/qmm.h"

typedef qmm_status gemm_strided_fn(size_t m, size_t n, size_t k,
                                   const int8_t *a, ptrdiff_t rsa, ptrdiff_t csa,
                                   const int8_t *b, ptrdiff_t rsb, ptrdiff_t csb,
                                   int32_t *c, ptrdiff_t rsc, ptrdiff_t csc);
typedef qmm_status gemm_rowmajor_fn(size_t m, size_t n, size_t k,
                                    const int8_t *a, size_t lda, const int8_t *b,
                                    size_t ldb, int32_t *c, size_t ldc);

/* Runs the whole suite; the row-major sweep goes through rowmajor when it is
 * given, else through strided. Returns the number of checks made (failures
 * go to test_failures). */
long exact_suite_run(const char *label, gemm_strided_fn *strided, gemm_rowmajor_fn *rowmajor);

#endif
