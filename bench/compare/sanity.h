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
 * about 1e-16: a lost slice or a misplaced scale shows far above this. */
#define COMPARE_DGEMM_I8_BOUND 1e-12

/* The bound r's relative L2 error must stay under, or 0 when none applies:
 * only the two above, on uniform data. */
double compare_sanity_bound(const compare_record *r);

/* Nonzero when r passed: every call returned QMM_OK, the error is a number
 * (not NaN) and under its bound, if any. */
int compare_sanity_passed(const compare_record *r);

#endif
