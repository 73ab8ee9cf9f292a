/*
 * Splitting doubles into int8 slices of 7 bits under power-of-two scales
 * (the Ozaki scheme, as qmm_dgemm_i8 in include/qmm/qmm.h defines it): per
 * line, E is the least integer with |x| < 2^E (0 for a line of zeros), and
 * v = x * 2^-E in (-1, 1) is written as sum_u d_u 2^(-7u) + r, each digit
 * d_u = trunc(r_(u-1) * 2^(7u)) in [-127, 127]. Powers of two keep every step
 * exact, so the slices are the same bits everywhere.
 */
#ifndef QMM_QUANTIZE_SPLIT_H
#define QMM_QUANTIZE_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "qmm/qmm.h"

typedef struct qmm_split_job {
    const double *x;
    size_t ldx, rows, cols;      /* rows, cols >= 1 */
    qmm_per per;                 /* QMM_PER_MATRIX, QMM_PER_ROW or QMM_PER_COL */
    unsigned slices;             /* 1 .. QMM_MAX_SLICES */
    /* Digit u (1-based) of element (i, j) at out[(u - 1) * slice_step + i * ldo + j]. */
    int8_t *out;
    ptrdiff_t slice_step;
    size_t ldo;
    int *exps;                   /* E, one per line */
} qmm_split_job;

/* Splits on the thread count's threads; QMM_ERR_INVALID_ARG (said under
 * QMM_VERBOSE) when a value is NaN or infinite, nothing written then;
 * QMM_ERR_NO_MEMORY. */
qmm_status qmm_split_run(const qmm_split_job *job);

#endif
