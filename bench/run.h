/*
 * Timing one shape: random operands, one warm-up call per contender, then the
 * timed repetitions, contenders interleaved (A, B, A, B, ...) so that clock
 * and thermal drift hit them alike, and finally the result check.
 */
#ifndef QMM_BENCH_RUN_H
#define QMM_BENCH_RUN_H

#include <stddef.h>

#include "compute/work.h"
#include "kernels/kernel.h"
#include "qmm/qmm.h"
#include "quantized.h"
#include "reference.h"
#include "shapes.h"
#include "weights.h"

/* Repetitions when none are asked for: enough for about
 * BENCH_TARGET_SECONDS of timed calls per contender, judged from the warm-up,
 * so that quick shapes still get a stable median; at least BENCH_MIN_REPS, and
 * at most BENCH_MAX_REPS so that tiny shapes do not spin on call overhead. */
#define BENCH_TARGET_SECONDS 0.2
#define BENCH_MIN_REPS 5
#define BENCH_MAX_REPS 1000

/* At most two: a kernel and the one it is compared with (--vs), or one
 * kernel on two thread counts (--threads N,M), with two output stages
 * (--out X,Y), with two types of A (--a X,Y) or with its weights packed two
 * ways (--weights X,Y). */
#define BENCH_MAX_CONTENDERS 2

/* What computes the product, and which product. */
typedef struct bench_contender {
    const char *name;           /* the kernel, as the report shows it */
    const qmm_kernel *forced;   /* NULL: qmm chooses; else a one-shot call, int8 A to int32 */
    size_t threads;             /* qmm_set_num_threads before each call; 0: qmm's default */
    qmm_type a;                 /* A's type (quantized.h) */
    bench_out out;              /* C's type and stage: other than int8 A to int32, qmm_gemm */
    bench_weights weights;      /* a plan made before the timing (weights.h), or none */
} bench_contender;

typedef struct bench_outcome {
    const char *kernel;         /* as the report shows it: a plan's own choice, else who->name */
    double median_seconds;
    qmm_status status;          /* of the first call that failed, else QMM_OK */
    bench_check check;
    qmm_work work;              /* what its last call did (compute/work.h) */
} bench_outcome;

typedef struct bench_shape_result {
    size_t reps;
    bench_outcome per[BENCH_MAX_CONTENDERS];
} bench_shape_result;

/* Nonzero when the contender's calls all succeeded and its result matched. */
int bench_outcome_passed(const bench_outcome *o);

/* Time count contenders on shape s (every size >= 1) for reps repetitions,
 * or an automatic number when reps == 0. Returns 0 when the operands do not
 * fit in memory (said on stderr), else 1 with the results in *res. A plan
 * that cannot be made is a failed call of its contender. */
int bench_run_shape(bench_shape s, const bench_contender *who, size_t count, size_t reps,
                    bench_shape_result *res);

#endif
