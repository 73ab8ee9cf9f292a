/*
 * One case (a shape and a distribution): operands drawn, the FP64 reference
 * computed by cblas_dgemm, one untimed round of every method, then the timed
 * rounds, methods interleaved in each so that clock and thermal drift hit
 * them alike, and last each method's error against the reference.
 */
#ifndef QMM_COMPARE_RUN_H
#define QMM_COMPARE_RUN_H

#include <stddef.h>

#include "../shapes.h"
#include "accuracy.h"
#include "data.h"
#include "methods.h"
#include "qmm/qmm.h"

/* Repetitions when --reps is not given: COMPARE_REPS, or COMPARE_SLOW_REPS
 * for a case whose untimed round took more than COMPARE_SLOW_ROUND_SECONDS
 * (1024^3 with many slices), so that the default run stays in minutes. */
#define COMPARE_REPS 5
#define COMPARE_SLOW_REPS 3
#define COMPARE_SLOW_ROUND_SECONDS 2.0

/* A call shorter than this, in the untimed round, is timed right after an
 * untimed call of its own, so that it finds its operands in the caches as
 * warm as every other method does (rather than evicted by the method before
 * it); a longer call loses nothing measurable by starting cold. */
#define COMPARE_REWARM_SECONDS 0.05

/* One method on one case, what the report and the plot show. */
typedef struct compare_record {
    bench_shape shape;
    size_t shape_index;         /* among the run's shapes: the plot's point type */
    compare_dist dist;
    compare_method method;
    size_t reps;
    qmm_status status;          /* of the method's first failed call, else QMM_OK */
    compare_error error;
    double end_to_end_seconds;  /* median */
    double kernel_seconds;      /* median; 0 for the methods without (BLAS) */
    double reference_seconds;   /* cblas_dgemm's end-to-end median on the same case */
} compare_record;

/* Runs methods[0..count) (methods[0] must be cblas_dgemm) on shape s with
 * operands drawn from d, reps rounds (0: COMPARE_REPS or COMPARE_SLOW_REPS);
 * with threads > 1, each method's calls in a round wait for the threads of
 * the one before to go idle (../workers.h).
 * Fills out[0..count). Returns 0 when the case does not fit in memory
 * (said on stderr). */
int compare_run_case(bench_shape s, size_t shape_index, compare_dist d,
                     const compare_method *methods, size_t count, size_t reps, size_t threads,
                     compare_record *out);

#endif
