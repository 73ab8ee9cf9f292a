/*
 * The result check: entries of C compared with an exact reference computed
 * here, independently of the library's packing and kernels.
 */
#ifndef QMM_BENCH_REFERENCE_H
#define QMM_BENCH_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "shapes.h"

/* Entries checked per result when C has more than this many. */
#define BENCH_CHECK_SAMPLES 256

typedef struct bench_check {
    size_t checked, wrong;
    /* The first wrong entry, when wrong > 0. */
    size_t i, j;
    int32_t got, want;
} bench_check;

/* Compare C = A.B (all row-major and packed: lda = k, ldb = ldc = n) with the
 * reference: every entry when C has at most BENCH_CHECK_SAMPLES, else its four
 * corners (where edge tiles end) and random entries drawn from seed, so that
 * the check stays cheap next to the product itself. */
bench_check bench_check_sample(bench_shape s, const int8_t *a, const int8_t *b,
                               const int32_t *c, uint64_t seed);

#endif
