/*
 * Every contender is prepared outside the timing (its operands converted to
 * the form it takes: uint8 with an offset, float, transposed; its weights
 * packed where it packs them once), then the repetitions are interleaved: one
 * timed call of each contender per repetition, so that all see the same
 * machine state. Each timed call follows an untimed call of the same
 * contender, so that every one finds the operands (and its own buffers) as
 * warm as the others do: timed cold, the first contender of a repetition
 * would pay for bringing A and B into the caches for all those after it (qmm,
 * first, ran 5-10% slower than the same call right after it on Zen5).
 */
#include "run.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../timing.h"
#include "../workers.h"
#include "report.h"
#include "xmalloc.h"

static const size_t entry_size[] = {
    [RESULT_I32] = sizeof(int32_t),
    [RESULT_F32] = sizeof(float),
    [RESULT_S8] = sizeof(int8_t),
    [RESULT_U8] = sizeof(uint8_t),
};

/* With more than one thread, each contender's first (untimed) call waits for
 * the workers of the library before it to go idle: ../workers.c tells why,
 * and why the wait polls without sleeping. */
static void wait_for_quiet_workers(size_t threads)
{
    if (threads > 1)
        bench_wait_for_idle_workers();
}

/* Sets t up with a result buffer that no right answer looks like, so that an
 * entry never written shows in the verdict. */
static int setup(trial *t, const operands *o)
{
    size_t bytes = o->s.m * o->s.n * entry_size[t->of->result];
    t->c = xmalloc(bytes);
    memset(t->c, 0xa5, bytes);
    return t->of->setup == NULL || t->of->setup(t, o);
}

int run_shape(shape s, size_t fixed_reps, size_t threads, trial *trials, size_t count)
{
    operands o = make_operands(s);
    int failed = 0;
    double warm = 0;
    for (size_t w = 0; w < count; w++) {
        trial *t = &trials[w];
        t->ready = setup(t, &o);
        if (t->ready) {
            wait_for_quiet_workers(threads);
            double start = bench_now();
            t->ready = t->of->run(t, &o);
            warm += bench_now() - start;
        }
        if (!t->ready) {
            fprintf(stderr, "qmm-bench-peers: %s failed on %zux%zux%zu\n", t->of->name, s.m,
                    s.k, s.n);
            failed = 1;
        }
    }
    size_t reps = fixed_reps;
    if (reps == 0) {
        reps = warm > 0 ? (size_t)(1.5 / (2 * warm)) : 101;
        reps = reps < 7 ? 7 : reps > 101 ? 101 : reps;
    }
    double *times = xmalloc(count * reps * sizeof *times);
    for (size_t r = 0; r < reps; r++)
        for (size_t w = 0; w < count; w++) {
            trial *t = &trials[w];
            if (!t->ready)
                continue;
            wait_for_quiet_workers(threads);
            if (!t->of->run(t, &o))
                t->ready = 0, failed = 1;
            double start = bench_now();
            if (t->ready && !t->of->run(t, &o))
                t->ready = 0, failed = 1;
            times[w * reps + r] = bench_now() - start;
        }
    for (size_t w = 0; w < count; w++)
        trials[w].median = trials[w].ready ? bench_median(times + w * reps, reps) : 0;
    report_shape(&o, reps, trials, count);
    /* After the report: some verdicts read another contender's result. */
    for (size_t w = 0; w < count; w++) {
        if (trials[w].of->teardown != NULL)
            trials[w].of->teardown(&trials[w]);
        free(trials[w].c);
    }
    free(times);
    free_operands(&o);
    return !failed;
}
