/*
 * A job: one product as the loop nest sees it, and how it runs.
 *
 * qmm_job_run cuts the job into sweeps (parts of C and of the depth whose
 * packed panels fit a bound on memory: usually the whole product is one),
 * sets aside the call's buffer, and runs each sweep on a team of threads
 * (compute/threads.h): its A and B panels packed once and shared
 * (compute/panels.h), its tiles split into tasks (compute/partition.h), each
 * the loop nest over its range (compute/loops.h), then the partial sums of a
 * depth split added.
 */
#ifndef QMM_JOB_H
#define QMM_JOB_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "../kernels/kernel.h"
#include "blocking.h"
#include "qmm/qmm.h"
#include "tile.h"

typedef struct qmm_job {
    const qmm_kernel *kern;
    size_t m, n, k;            /* m, n >= 1 */
    qmm_blocking blk;
    /* A packed by a plan (compute/packed.h), or NULL: A from its source,
     * element (i, p) at a[i*rsa + p*csa], packed by the tasks (or read in
     * place) as they go. */
    const unsigned char *packed_a;
    const int8_t *a;
    ptrdiff_t rsa, csa;
    /* B packed by a plan, or NULL: B from its source, element (p, j) at
     * b[p*rsb + j*csb], packed by the tasks. */
    const unsigned char *packed_b;
    const int8_t *b;
    ptrdiff_t rsb, csb;
    /* Or NULL: n values to which the tasks add B's column sums over depth,
     * each times b_sums_factor (wrapping), as they pack B
     * (compute/panels.h): complete for a tile's columns once its last k
     * block is reached, where the stage may read them (a zero point's
     * correction, its factor the zero point). */
    atomic_uint *b_sums;
    uint32_t b_sums_factor;
    /* The output stage (output/epilogue.h), or NULL: C is the plain sums, in c. */
    const qmm_epilogue *epi;
    /* A batch: `batch` products (0 counts as 1) of the same sizes, kernel
     * and blocking, run in turn on one team and one buffer, product t with
     * A at a + t * a_step, B at b + t * b_step (or packed at packed_b +
     * t * packed_b_step) and stage epi + t, which names its C. A batch of
     * more than one has A from its source, a stage for every product, and
     * no b_sums. */
    size_t batch;
    size_t a_step, b_step, packed_b_step;
    /* Where the sums go: C itself when it is int32 (epi NULL or of type
     * QMM_TYPE_I32); for other outputs, qmm_job_run sets it to a buffer when
     * a tile's sums are made in several steps (k blocks, depth parts). */
    qmm_c_view c;
} qmm_job;

/* Runs the job: fills its blocking (blk) for its kernel and sizes, then
 * computes C (from zero sums when k == 0) of each product of its batch,
 * recording its work (compute/work.h). QMM_ERR_INVALID_ARG when the sizes overflow,
 * QMM_ERR_NO_MEMORY for want of memory, both before C is written and said
 * under QMM_VERBOSE. */
qmm_status qmm_job_run(qmm_job *job);

/* Sets the bytes of packed panels a sweep may hold (0 restores the default):
 * tests lower it so that small products take the paths of very large ones. */
void qmm_job_set_sweep_bytes(size_t bytes);

#endif
