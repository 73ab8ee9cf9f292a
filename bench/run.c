#include "run.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compute/gemm.h"
#include "rng.h"
#include "timing.h"

/* Fixed seeds: the same inputs and the same checked entries on every run. */
#define INPUT_SEED 0x716d6d2d62656e63u
#define SAMPLE_SEED 0x73616d706c657321u

int bench_outcome_passed(const bench_outcome *o)
{
    return o->status == QMM_OK && o->check.wrong == 0;
}

/* C = A.B, all row-major, packing included: through the public call, or
 * through the same one-shot plan with the kernel forced. */
static qmm_status multiply(const bench_contender *who, bench_shape s, const int8_t *a,
                           const int8_t *b, int32_t *c)
{
    qmm_set_num_threads(who->threads);
    if (who->forced == NULL)
        return qmm_i8_i32(s.m, s.n, s.k, a, s.k, b, s.n, c, s.n);
    return qmm_product(who->forced, s.m, s.n, s.k, a, (ptrdiff_t)s.k, 1, b, (ptrdiff_t)s.n, 1,
                       c, (ptrdiff_t)s.n, 1);
}

/* One call, its duration in seconds; a failure is kept in o->status. */
static double timed_multiply(const bench_contender *who, bench_shape s, const int8_t *a,
                             const int8_t *b, int32_t *c, bench_outcome *o)
{
    double start = bench_now();
    qmm_status st = multiply(who, s, a, b, c);
    double seconds = bench_now() - start;
    if (st != QMM_OK && o->status == QMM_OK)
        o->status = st;
    return seconds;
}

static size_t automatic_reps(double seconds_per_call)
{
    /* Compared before dividing: the quotient may not fit in a size_t. */
    if (seconds_per_call * BENCH_MAX_REPS <= BENCH_TARGET_SECONDS)
        return BENCH_MAX_REPS;
    size_t want = (size_t)(BENCH_TARGET_SECONDS / seconds_per_call) + 1;
    return want < BENCH_MIN_REPS ? BENCH_MIN_REPS : want;
}

/* rows * cols elements of elem bytes, or NULL when that overflows. */
static void *alloc_matrix(size_t rows, size_t cols, size_t elem)
{
    if (rows > SIZE_MAX / cols / elem)
        return NULL;
    return malloc(rows * cols * elem);
}

/* Warm up, time and check on allocated operands; 0 if the timings do not fit
 * in memory. */
static int time_and_check(bench_shape s, const bench_contender *who, size_t count,
                          size_t reps, int8_t *a, int8_t *b, int32_t *const *c,
                          bench_shape_result *res)
{
    memset(res, 0, sizeof *res);
    bench_rng rng = {INPUT_SEED};
    bench_rng_fill_int8(&rng, a, s.m * s.k);
    bench_rng_fill_int8(&rng, b, s.k * s.n);
    /* The extreme product (-128)(-128) in every run, in the checked C(0,0). */
    a[0] = b[0] = INT8_MIN;

    /* Each contender writes its own C, prefilled with a value that small
     * products do not give, so entries a kernel skips cannot pass as zeros. */
    double warmup = 0;
    for (size_t w = 0; w < count; w++) {
        memset(c[w], 0xa5, s.m * s.n * sizeof **c);
        warmup += timed_multiply(&who[w], s, a, b, c[w], &res->per[w]);
    }
    res->reps = reps != 0 ? reps : automatic_reps(warmup / (double)count);

    double *times = alloc_matrix(count, res->reps, sizeof *times);
    if (times == NULL)
        return 0;
    for (size_t r = 0; r < res->reps; r++)
        for (size_t w = 0; w < count; w++)
            times[w * res->reps + r] = timed_multiply(&who[w], s, a, b, c[w], &res->per[w]);
    for (size_t w = 0; w < count; w++) {
        res->per[w].median_seconds = bench_median(times + w * res->reps, res->reps);
        res->per[w].check = bench_check_sample(s, a, b, c[w], SAMPLE_SEED);
    }
    free(times);
    return 1;
}

int bench_run_shape(bench_shape s, const bench_contender *who, size_t count, size_t reps,
                    bench_shape_result *res)
{
    int8_t *a = alloc_matrix(s.m, s.k, 1);
    int8_t *b = alloc_matrix(s.k, s.n, 1);
    int32_t *c[BENCH_MAX_CONTENDERS] = {NULL};
    int allocated = a != NULL && b != NULL;
    for (size_t w = 0; w < count; w++) {
        c[w] = alloc_matrix(s.m, s.n, sizeof **c);
        allocated = allocated && c[w] != NULL;
    }
    int done = allocated && time_and_check(s, who, count, reps, a, b, c, res);
    if (!done) {
        char text[BENCH_SHAPE_TEXT_SIZE];
        bench_format_shape(s, text);
        fprintf(stderr, "qmm-bench: %s: not enough memory\n", text);
    }
    for (size_t w = 0; w < count; w++)
        free(c[w]);
    free(b);
    free(a);
    return done;
}
