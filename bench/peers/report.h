/* The table of one shape. */
#ifndef QMM_PEERS_REPORT_H
#define QMM_PEERS_REPORT_H

#include <stddef.h>

#include "contender.h"

/* The first line of the output: the thread count every library runs on. */
void report_begin(size_t threads, int avx2);

/* One row per trial: its median time, GOPS (2mnk / time), qmm's speedup over
 * it (its median over that of the qmm contender it is held against) and its
 * verdict (verdicts.h); "failed" for a trial that failed. */
void report_shape(const operands *o, size_t reps, const trial *trials, size_t count);

#endif
