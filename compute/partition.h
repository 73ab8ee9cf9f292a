/*
 * How a sweep of a job (compute/job.c) is split into tasks: a grid of tm x tn
 * blocks of C's tiles, each block's depth possibly cut into tk parts (k
 * blocks) whose partial sums are added at the end. The tm row groups share
 * B's panels and the tn column groups A's (compute/loops.h): each panel is
 * packed once whatever the split. The split chosen is the one whose largest
 * task costs least, counting multiply-adds, the panels it packs, those it
 * reads from the cores that packed them, and the final additions.
 */
#ifndef QMM_PARTITION_H
#define QMM_PARTITION_H

#include <stddef.h>

#include "job.h"
#include "loops.h"

typedef struct qmm_partition {
    size_t tm, tn, tk;   /* row groups, column groups, depth parts */
} qmm_partition;

/* How many multiply-adds kern does in the time of one of the AVX2 kernel
 * (rank 20) that the costs of threads and packing were measured with: its
 * rank over 20, at least 1. */
double qmm_partition_speedup(const qmm_kernel *kern);

/* Threads worth using on job: 1 for products too small to gain from more. */
size_t qmm_partition_threads(const qmm_job *job);

/* Sets the multiply-adds per thread under which a product uses fewer threads
 * (0 restores the measured default): tests lower it to 1 to run tiny products
 * on many threads. */
void qmm_partition_set_small_product(size_t macs);

/* The work per thread under which a step uses fewer threads: the value set
 * by qmm_partition_set_small_product, else fallback (the step's own
 * measured default). */
size_t qmm_partition_small(size_t fallback);

/* The split of the sweep (a range of job) over at most threads tasks. */
qmm_partition qmm_partition_choose(const qmm_job *job, const qmm_range *sweep, size_t threads);

static inline size_t qmm_partition_tasks(const qmm_partition *p)
{
    return p->tm * p->tn * p->tk;
}

/* Task t of a split: its range within the sweep, its depth part (0 for the
 * part that adds to the sums of earlier sweeps, and finishes C), and its
 * turns among the tasks that share its blocks (compute/loops.h). */
typedef struct qmm_task {
    qmm_range range;
    size_t part;
    qmm_turn a_turn, b_turn;
} qmm_task;

qmm_task qmm_partition_task(const qmm_job *job, const qmm_partition *p, const qmm_range *sweep,
                            size_t t);

#endif
