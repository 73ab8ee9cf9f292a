/*
 * The passes around the products (quantizing, slicing, converting sums):
 * a loop over count lines, split into contiguous ranges run on the call's
 * team. They stream memory, so a thread is worth it from about
 * QMM_RANGES_SMALL_WORK units of work (elements touched) of its own.
 */
#ifndef QMM_RANGES_H
#define QMM_RANGES_H

#include <stddef.h>

#include "threads.h"

enum { QMM_RANGES_SMALL_WORK = 1 << 16 };

/* Runs on lines [lo, hi), as task `task` of the split. */
typedef void qmm_range_fn(void *context, size_t task, size_t lo, size_t hi);

typedef struct qmm_ranges {
    qmm_team team;
    size_t count, tasks;   /* tasks >= 1, each with at least one line when count > 0 */
} qmm_ranges;

/* The split of count lines of work_per_line units each over the team it
 * joins. */
qmm_ranges qmm_ranges_begin(size_t count, double work_per_line);

/* Runs fn on every task's range and returns when all are done. */
void qmm_ranges_run(const qmm_ranges *r, qmm_range_fn *fn, void *context);

void qmm_ranges_end(qmm_ranges *r);

/* begin, run, end: for a caller that needs no task count beforehand. */
void qmm_ranges_for(size_t count, double work_per_line, qmm_range_fn *fn, void *context);

#endif
