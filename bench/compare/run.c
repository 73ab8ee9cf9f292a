#include "run.h"

#include <stdio.h>
#include <stdlib.h>

#include "../timing.h"
#include "../workers.h"
#include "../blas.h"

/* One timed thing: a method's end-to-end call or its kernel-only calls. */
typedef struct timed {
    size_t method;
    int kernel;
    double untimed_seconds;   /* the untimed round's call */
    double *seconds;          /* one per round */
} timed;

typedef struct timing_plan {
    timed *items;
    size_t count;
    double *storage;
    size_t threads;
} timing_plan;

static qmm_status call(compare_contenders *c, const timed *t)
{
    return t->kernel ? compare_run_kernel(c, t->method) : compare_run_end_to_end(c, t->method);
}

/* Before a method's first call in a round, the other library's threads (or
 * the last method's) are let go idle; between its own untimed and timed
 * calls its workers spin as they do between the calls of a program that
 * makes many. */
static void settle(const timing_plan *p)
{
    if (p->threads > 1)
        bench_wait_for_idle_workers();
}

/* Every method's end-to-end call, and its kernel-only calls after it. */
static int plan_timing(const compare_method *methods, size_t count, size_t max_reps,
                       timing_plan *p)
{
    p->items = malloc(2 * count * sizeof *p->items);
    p->storage = malloc(2 * count * max_reps * sizeof *p->storage);
    if (p->items == NULL || p->storage == NULL)
        return 0;
    p->count = 0;
    for (size_t i = 0; i < count; i++)
        for (int kernel = 0; kernel <= compare_method_has_kernel(&methods[i]); kernel++) {
            timed *t = &p->items[p->count];
            t->method = i;
            t->kernel = kernel;
            t->seconds = p->storage + p->count * max_reps;
            p->count++;
        }
    return 1;
}

/* The untimed round: warms every method up and says how long a round
 * takes. A method whose call fails (a CRT call refused for too few moduli,
 * say) keeps that status and is not timed, nor are its kernel-only calls
 * run. */
static double untimed_round(compare_contenders *c, timing_plan *p, compare_record *out)
{
    double total = 0;
    for (size_t i = 0; i < p->count; i++) {
        timed *t = &p->items[i];
        if (out[t->method].status != QMM_OK)
            continue;
        settle(p);
        double start = bench_now();
        qmm_status st = call(c, t);
        t->untimed_seconds = bench_now() - start;
        total += t->untimed_seconds;
        out[t->method].status = st;
    }
    return total;
}

static void timed_rounds(compare_contenders *c, timing_plan *p, size_t reps,
                         compare_record *out)
{
    for (size_t r = 0; r < reps; r++)
        for (size_t i = 0; i < p->count; i++) {
            timed *t = &p->items[i];
            compare_record *rec = &out[t->method];
            if (rec->status != QMM_OK)
                continue;
            qmm_status st = QMM_OK;
            settle(p);
            if (t->untimed_seconds < COMPARE_REWARM_SECONDS)
                st = call(c, t);
            double start = bench_now();
            if (st == QMM_OK)
                st = call(c, t);
            t->seconds[r] = bench_now() - start;
            rec->status = st;
        }
}

static void take_medians(timing_plan *p, size_t reps, compare_record *out)
{
    for (size_t i = 0; i < p->count; i++) {
        timed *t = &p->items[i];
        compare_record *rec = &out[t->method];
        if (rec->status != QMM_OK)
            continue;
        double median = bench_median(t->seconds, reps);
        if (t->kernel)
            rec->kernel_seconds = median;
        else
            rec->end_to_end_seconds = median;
    }
}

static int time_and_measure(const compare_operands *o, const compare_method *methods,
                            size_t count, size_t reps, size_t threads, compare_record *out)
{
    const bench_shape s = o->shape;
    double *reference = malloc(s.m * s.n * sizeof *reference);
    compare_contenders *c = compare_prepare(o, methods, count);
    timing_plan p = {NULL, 0, NULL, threads};
    const size_t max_reps = reps != 0 ? reps : COMPARE_REPS;
    int ok = reference != NULL && c != NULL && plan_timing(methods, count, max_reps, &p);
    if (!ok && c != NULL)  /* compare_prepare explains its own failures */
        fprintf(stderr, "qmm-compare: out of memory for %zux%zux%zu\n", s.m, s.k, s.n);
    if (ok) {
        cblas_dgemm(BENCH_CBLAS_ROW_MAJOR, BENCH_CBLAS_NO_TRANS, BENCH_CBLAS_NO_TRANS,
                    (int)s.m, (int)s.n, (int)s.k, 1.0, o->a, (int)s.k, o->b, (int)s.n, 0.0,
                    reference, (int)s.n);
        double round_seconds = untimed_round(c, &p, out);
        if (reps == 0)
            reps = round_seconds > COMPARE_SLOW_ROUND_SECONDS ? COMPARE_SLOW_REPS : COMPARE_REPS;
        timed_rounds(c, &p, reps, out);
        take_medians(&p, reps, out);
        for (size_t i = 0; i < count; i++) {
            out[i].reps = reps;
            if (out[i].status == QMM_OK)
                out[i].error = compare_measure_error(c, i, reference);
            out[i].reference_seconds = out[0].end_to_end_seconds;
        }
    }
    free(p.items);
    free(p.storage);
    compare_release(c);
    free(reference);
    return ok;
}

int compare_run_case(bench_shape s, size_t shape_index, compare_dist d,
                     const compare_method *methods, size_t count, size_t reps, size_t threads,
                     compare_record *out)
{
    for (size_t i = 0; i < count; i++)
        out[i] = (compare_record){.shape = s, .shape_index = shape_index, .dist = d,
                                  .method = methods[i], .status = QMM_OK};
    compare_operands o;
    if (!compare_make_operands(s, d, &o)) {
        fprintf(stderr, "qmm-compare: the operands of %zux%zux%zu do not fit in memory\n", s.m,
                s.k, s.n);
        return 0;
    }
    int ok = time_and_measure(&o, methods, count, reps, threads, out);
    compare_free_operands(&o);
    return ok;
}
