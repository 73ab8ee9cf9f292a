/*
 * The work a product did, counted as it runs: what lets anyone compare a run
 * on T threads with a run on one without timing it (and without T cores).
 * Counted per task, added once per task, kept per calling thread for its last
 * product; the bench and the tests read it.
 */
#ifndef QMM_WORK_H
#define QMM_WORK_H

#include <stddef.h>
#include <stdint.h>

typedef struct qmm_work {
    size_t threads;          /* the team the product ran on */
    size_t tasks;            /* over all its sweeps (compute/job.c) */
    size_t sweeps;
    uint64_t packed_a;       /* bytes of A's panels packed (a plan's not counted) */
    uint64_t packed_b;       /* bytes of B's panels packed (a plan's not counted) */
    uint64_t tiles;          /* microkernel calls: one tile over one k block */
    uint64_t reduced;        /* bytes of partial sums added after depth splits */
    uint64_t copied;         /* bytes of operands copied before the job (uint8 flipped to int8) */
} qmm_work;

/* The work of the calling thread's last product (zeros before the first). */
qmm_work qmm_work_last(void);

/* Records w as the calling thread's last product's. */
void qmm_work_record(const qmm_work *w);

#endif
