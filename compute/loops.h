/*
 * The loop nest of one task: C's tiles over a range of rows, columns and k
 * blocks, in BLIS's order. Outermost first:
 *
 *   k block    (pc)  A's rows of the task packed for the block, when they are
 *                    its own and few enough to keep (else an A block at a time)
 *   B block    (jc)  nc columns packed: shared with the other row groups
 *                    (compute/panels.h), or the task's own, one block at a time
 *   A block    (ic)  mc rows: from the plan's packed A, read in place, shared
 *                    with the other column groups, or the task's own
 *   B panel    (jr)  nr columns, stays in L1 across the A panels
 *   A panel    (ir)  one tile: compute/tile.h
 *
 * Panels that other tasks read too are packed once into the sweep's shared
 * buffer; panels that no other task reads are packed into the task's own
 * region of the call's buffer and overwritten from one block to the next
 * while still in cache, as a thread alone would.
 *
 * The kernel's job hooks (kernels/kernel.h) wrap the whole nest: its state is
 * set up once per task, on the thread that runs it.
 *
 * A is read in place (qmm_a_in_place) when it is already in the layout of the
 * kernel's panels and the whole depth is one block: its full panels are A's
 * own rows, and only a last partial panel is packed.
 */
#ifndef QMM_LOOPS_H
#define QMM_LOOPS_H

#include <stddef.h>

#include "job.h"
#include "panels.h"
#include "work.h"

/* A part of C: rows [i0, i1), columns [j0, j1) (tile boundaries, or the end
 * of C) and k blocks [kb0, kb1). */
typedef struct qmm_range {
    size_t i0, i1, j0, j1, kb0, kb1;
} qmm_range;

/* Whether A (element (i,p) at a[i*rsa + p*csa]) can be read in place by kern
 * at padded depth kp: A is row-major with rows of exactly kp depths (csa == 1,
 * rsa == kp and k == kp, so k is a multiple of the format's kr), and kern's A
 * format is K-inner int8 with panels back to back (panel bytes == mr * kp: no
 * alignment padding, no line sums). Then the packed panel of rows [i, i + mr)
 * is byte for byte the source from a + i*rsa, and the kernel reads that
 * address, at any alignment: kernels must read A panels of such formats
 * without assuming the format's alignment. */
int qmm_a_in_place(const qmm_kernel *kern, size_t k, size_t kp, ptrdiff_t rsa, ptrdiff_t csa);

/* Whether job reads A in place: A from its source, in the kernel's panel
 * layout (qmm_a_in_place), the whole depth one k block. */
int qmm_loops_a_in_place(const qmm_job *job);

/* Where a task's sums go: the view `to` (C, a buffer of sums with C's extent,
 * or a depth part's partial sums), stored in the range's first k block when
 * fresh, else added; with finish not NULL, the tiles of the range's last k
 * block go through that stage into C (compute/tile.h). Its turns
 * (compute/panels.h) among the tasks that share its A panels (the other
 * column groups) and its B panels (the other row groups): it walks blocks and
 * panels in that order, so that tasks sharing them pack and read different
 * ones first instead of waiting on each other. */
typedef struct qmm_task_out {
    const qmm_c_view *to;
    int fresh;
    const qmm_epilogue *finish;
    qmm_turn a_turn, b_turn;
    unsigned char *own;  /* its region (qmm_loops_own_bytes), aligned to QMM_PACK_MAX_ALIGN */
    size_t hold_a;       /* the most bytes of its own A it keeps packed for a k block */
} qmm_task_out;

/* Bytes of the region a task with range r and out's turns and hold_a packs
 * its own panels into (those no other task reads). */
size_t qmm_loops_own_bytes(const qmm_job *job, const qmm_range *r, const qmm_task_out *out);

/* Runs the nest over range r, reading A's and B's shared panels from a and b
 * (A's full panels from its source when job reads A in place) and packing its
 * own into out->own, adding what it packed and computed to *done. */
void qmm_loops_run(const qmm_job *job, const qmm_panels *a, const qmm_panels *b,
                   const qmm_range *r, const qmm_task_out *out, qmm_work *done);

#endif
