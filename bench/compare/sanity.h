/* What makes qmm-compare a check and not only a measurement: bounds that
 * qmm's results must stay under, loose enough that no correct build misses
 * them and tight enough that a broken recipe does. */
#ifndef QMM_COMPARE_SANITY_H
#define QMM_COMPARE_SANITY_H

#include "run.h"

/* Per tensor or per channel on uniform data, int8 steps of 1/127 of the
 * largest value leave about 1e-2. */
#define COMPARE_SGEMM_I8_BOUND 1e-1
/* QMM_FP64_SLICES slices and more on uniform data match a double GEMM,
 * about 1e-16: a lost slice or a misplaced scale shows far above this. So
 * do QMM_CRT_FP64_MODULI moduli; a lost or wrong residue leaves an error
 * near 1 or above. */
#define COMPARE_DGEMM_I8_BOUND 1e-12
/* QMM_CRT_FP32_MODULI moduli and more on uniform data leave C's rounding to
 * float, about 4e-8 (cblas_sgemm: 6e-8 to 4e-7), up to 1.5e-7 at k = 2^16
 * where 8 moduli keep only 22 and 23 bits of each line (measured on
 * 32 x k x 32). A float-level bound with room: qmm_sgemm_i8's 1e-1 would
 * let through bits lost by the dozen (a bad rounding, a scale a few powers
 * of two off), which this does not. */
#define COMPARE_SGEMM_CRT_BOUND 1e-6

/* The bound r's relative L2 error must stay under, or 0 when none applies:
 * only the three above, on uniform data. */
double compare_sanity_bound(const compare_record *r);

/* Nonzero when r is a CRT row with too few moduli for its depth that qmm
 * refused (QMM_ERR_INVALID_ARG), as its header says it must: shown as
 * skipped, not failed. */
int compare_skipped(const compare_record *r);

/* Nonzero when r passed: every call returned QMM_OK, the error is a number
 * (not NaN) and under its bound, if any; or r was skipped. */
int compare_sanity_passed(const compare_record *r);

#endif
