#include "run.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compute/gemm.h"
#include "rng.h"
#include "timing.h"

/* Fixed seeds: the same inputs, stage parameters and checked entries on
 * every run. */
#define INPUT_SEED 0x716d6d2d62656e63u
#define PARAMS_SEED 0x7374616765732121u
#define SAMPLE_SEED 0x73616d706c657321u

int bench_outcome_passed(const bench_outcome *o)
{
    return o->status == QMM_OK && o->check.wrong == 0;
}

/* One contender's calls on a shape: its product, and qmm_gemm's descriptor
 * of it and its plan, made once, outside the timed calls. */
typedef struct call {
    const bench_contender *who;
    bench_product p;
    qmm_gemm_desc d;
    qmm_plan *plan;             /* --weights a or b, once made; else NULL */
} call;

static call make_call(const bench_contender *who, bench_shape s, const int8_t *a,
                      const int8_t *b, void *c, const bench_params *params)
{
    call x = {.who = who,
              .p = {.s = s, .a_type = who->a, .a = a, .b = b, .out = who->out,
                    .params = params, .c = c}};
    x.d = bench_gemm_desc(&x.p);
    return x;
}

/* C = stage(A.B), all row-major, packing included but for a plan's
 * weights. A plan runs on the descriptor's other operand and output (a plan
 * that could not be made fails here too, its status already kept). A
 * quantized product through qmm_gemm; int8 A to int32 as before qmm_gemm
 * existed, so that its figures stay comparable: through the public call, or
 * through the same one-shot plan with the kernel forced. */
static qmm_status multiply(const call *x)
{
    const bench_product *p = &x->p;
    const bench_shape s = p->s;
    qmm_set_num_threads(x->who->threads);
    if (x->who->weights != BENCH_WEIGHTS_NONE)
        return qmm_plan_run_gemm(x->plan, &x->d);
    if (bench_is_quantized(p->a_type, p->out))
        return qmm_gemm(&x->d);
    if (x->who->forced == NULL)
        return qmm_i8_i32(s.m, s.n, s.k, p->a, s.k, p->b, s.n, p->c, s.n);
    return qmm_product(x->who->forced, s.m, s.n, s.k, p->a, (ptrdiff_t)s.k, 1, p->b,
                       (ptrdiff_t)s.n, 1, p->c, (ptrdiff_t)s.n, 1);
}

/* One call, its duration in seconds; a failure is kept in o->status. */
static double timed_multiply(const call *x, bench_outcome *o)
{
    double start = bench_now();
    qmm_status st = multiply(x);
    double seconds = bench_now() - start;
    o->work = qmm_work_last();
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

static void fill_operands(bench_shape s, int8_t *a, int8_t *b)
{
    bench_rng rng = {INPUT_SEED};
    bench_rng_fill_int8(&rng, a, s.m * s.k);
    bench_rng_fill_int8(&rng, b, s.k * s.n);
    /* The extreme product (-128)(-128) in every run, in the checked C(0,0)
     * (a uint8 A reads its byte as 128). */
    a[0] = b[0] = INT8_MIN;
}

/* The contenders' plans, from the operands filled, and the kernel each
 * contender runs: a plan chooses its own, for its free size. Made before
 * any call, so that packing the weights, done once per layer in an
 * inference, stays out of the timing; on the contender's threads, so that a
 * one-thread run starts no worker whose idle spinning the calls after would
 * share the CPU with (or, under tools/icount-report, be counted with). */
static void make_plans(call *calls, size_t count, bench_shape_result *res)
{
    for (size_t w = 0; w < count; w++) {
        call *x = &calls[w];
        bench_outcome *o = &res->per[w];
        const bench_weights weights = x->who->weights;
        o->kernel = x->who->name;
        if (weights == BENCH_WEIGHTS_NONE)
            continue;
        qmm_set_num_threads(x->who->threads);
        o->status = bench_plan_create(&x->plan, &x->d, weights);
        if (o->status == QMM_OK)
            o->kernel = qmm_plan_kernel_name(x->plan, bench_plan_free_size(x->p.s, weights));
    }
}

/* Make the plans, warm up, time and check the calls, on operands filled; 0
 * if the timings do not fit in memory. */
static int time_and_check(call *calls, size_t count, size_t reps, bench_shape_result *res)
{
    memset(res, 0, sizeof *res);
    const bench_shape s = calls[0].p.s;
    make_plans(calls, count, res);

    /* Each contender writes its own C, prefilled with a value that small
     * products do not give, so entries a kernel skips cannot pass as zeros
     * (an int8 output may be that value, but not many sampled ones). */
    double warmup = 0;
    for (size_t w = 0; w < count; w++) {
        memset(calls[w].p.c, 0xa5, s.m * s.n * bench_out_bytes(calls[w].p.out));
        warmup += timed_multiply(&calls[w], &res->per[w]);
    }
    res->reps = reps != 0 ? reps : automatic_reps(warmup / (double)count);

    double *times = alloc_matrix(count, res->reps, sizeof *times);
    if (times == NULL)
        return 0;
    for (size_t r = 0; r < res->reps; r++)
        for (size_t w = 0; w < count; w++)
            times[w * res->reps + r] = timed_multiply(&calls[w], &res->per[w]);
    for (size_t w = 0; w < count; w++) {
        res->per[w].median_seconds = bench_median(times + w * res->reps, res->reps);
        res->per[w].check = bench_check_sample(&calls[w].p, SAMPLE_SEED);
    }
    free(times);
    return 1;
}

int bench_run_shape(bench_shape s, const bench_contender *who, size_t count, size_t reps,
                    bench_shape_result *res)
{
    bench_params params;
    int allocated = bench_params_draw(&params, s.n, PARAMS_SEED);
    int8_t *a = alloc_matrix(s.m, s.k, 1);
    int8_t *b = alloc_matrix(s.k, s.n, 1);
    allocated = allocated && a != NULL && b != NULL;
    call calls[BENCH_MAX_CONTENDERS];
    for (size_t w = 0; w < count; w++) {
        void *c = alloc_matrix(s.m, s.n, bench_out_bytes(who[w].out));
        calls[w] = make_call(&who[w], s, a, b, c, &params);
        allocated = allocated && c != NULL;
    }
    if (allocated)
        fill_operands(s, a, b);
    int done = allocated && time_and_check(calls, count, reps, res);
    if (!done) {
        char text[BENCH_SHAPE_TEXT_SIZE];
        bench_format_shape(s, text);
        fprintf(stderr, "qmm-bench: %s: not enough memory\n", text);
    }
    for (size_t w = 0; w < count; w++) {
        qmm_plan_destroy(calls[w].plan);
        free(calls[w].p.c);
    }
    free(b);
    free(a);
    bench_params_free(&params);
    return done;
}
