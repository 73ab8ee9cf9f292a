#include "report.h"

#include <stdio.h>

#include "libraries.h"
#include "verdicts.h"

void report_begin(size_t threads, int avx2)
{
    printf("qmm-bench-peers: threads: %zu (every library); qmm speedup = peer median / "
           "qmm median (qmm one-shot, packing included, unless the row names another)%s\n",
           threads, avx2 ? "; qmm and oneDNN limited to AVX2" : "");
}

/* The trial of contender c; NULL when the table does not have it. */
static const trial *trial_of(const contender *c, const trial *trials, size_t count)
{
    for (size_t w = 0; w < count; w++)
        if (trials[w].of == c)
            return &trials[w];
    return NULL;
}

void report_shape(const operands *o, size_t reps, const trial *trials, size_t count)
{
    const shape s = o->s;
    double ops = 2.0 * (double)s.m * (double)s.n * (double)s.k;
    printf("\n%zux%zux%zu (MxKxN, %s), %zu reps\n", s.m, s.k, s.n, s.what, reps);
    printf("  %-31s %11s %9s %12s  %s\n", "library", "median us", "GOPS", "qmm speedup",
           "max |error| vs exact int32");
    for (size_t w = 0; w < count; w++) {
        const trial *t = &trials[w];
        const contender *c = t->of;
        if (!t->ready) {
            printf("  %-31s %11s %9s %12s  %s\n", c->name, "-", "-", "-", "failed");
            continue;
        }
        const contender *against = c->against != NULL ? c->against : &qmm_one_shot;
        const trial *base = trial_of(against, trials, count);
        double qmm = base != NULL ? base->median : 0;
        char text[160];
        verdict(t, c->peer != NULL ? trial_of(c->peer, trials, count) : NULL, o, text,
                sizeof text);
        printf("  %-31s %11.1f %9.2f %11.2fx  %s", c->name, t->median * 1e6,
               ops / t->median * 1e-9, qmm > 0 ? t->median / qmm : 0, text);
        if (c->against != NULL)
            printf("; speedup over %s", c->against->name);
        printf("\n");
    }
    fflush(stdout);
}
