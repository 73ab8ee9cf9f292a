#include "ranges.h"

#include "partition.h"

typedef struct ranges_call {
    const qmm_ranges *r;
    qmm_range_fn *fn;
    void *context;
} ranges_call;

static void run_range(void *context, size_t t)
{
    const ranges_call *call = context;
    const size_t count = call->r->count, tasks = call->r->tasks;
    /* The first count % tasks ranges have one line more. */
    const size_t base = count / tasks, extra = count % tasks;
    const size_t lo = base * t + (t < extra ? t : extra);
    const size_t hi = lo + base + (t < extra);
    if (lo < hi)
        call->fn(call->context, t, lo, hi);
}

qmm_ranges qmm_ranges_begin(size_t count, double work_per_line)
{
    double worth = (double)count * work_per_line /
                   (double)qmm_partition_small(QMM_RANGES_SMALL_WORK);
    size_t want = worth < 1 ? 1 : worth > QMM_MAX_THREADS ? QMM_MAX_THREADS : (size_t)worth;
    if (want > count && count > 0)
        want = count;
    qmm_ranges r = {.team = qmm_team_join(want), .count = count};
    r.tasks = r.team.threads;
    return r;
}

void qmm_ranges_run(const qmm_ranges *r, qmm_range_fn *fn, void *context)
{
    ranges_call call = {r, fn, context};
    qmm_team_run(&r->team, r->tasks, run_range, &call);
}

void qmm_ranges_end(qmm_ranges *r)
{
    qmm_team_leave(&r->team);
}

void qmm_ranges_for(size_t count, double work_per_line, qmm_range_fn *fn, void *context)
{
    qmm_ranges r = qmm_ranges_begin(count, work_per_line);
    qmm_ranges_run(&r, fn, context);
    qmm_ranges_end(&r);
}
