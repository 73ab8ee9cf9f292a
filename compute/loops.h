/*
 * The loop nest of one task: C's tiles over a range of rows, columns and k
 * blocks, in BLIS's order. Outermost first:
 *
 *   k block    (pc)  A's rows of the range packed for this block, when B has
 *                    several blocks, A comes from its source and the rows fit
 *                    the blocking's a_rows
 *   B block    (jc)  nc columns packed into the workspace, kept in L2/L3
 *   A block    (ic)  mc rows: from the plan's packed A, read in place, from
 *                    the rows packed for the k block, or packed right here
 *   B panel    (jr)  nr columns, stays in L1 across the A panels
 *   A panel    (ir)  one tile: compute/tile.h
 *
 * The kernel's job hooks (kernels/kernel.h) wrap the whole nest: its state is
 * set up once per task, on the thread that runs it.
 *
 * A is read in place (qmm_a_in_place) when it is already in the layout of the
 * kernel's panels and the range covers the whole depth in one block: its full
 * panels are A's own rows, and only a last partial panel is packed.
 */
#ifndef QMM_LOOPS_H
#define QMM_LOOPS_H

#include <stddef.h>

#include "job.h"

/* A task's part of C: rows [i0, i1), columns [j0, j1) (tile boundaries, or
 * the end of C) and k blocks [kb0, kb1). */
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

/* Workspace bytes the nest needs for range r of job; 0 when that overflows. */
size_t qmm_loops_workspace(const qmm_job *job, const qmm_range *r);

/* Runs the nest over range r, writing its sums to `to` (C, or a buffer of
 * sums with C's extent), in a workspace of qmm_loops_workspace() bytes
 * aligned to QMM_WORKSPACE_ALIGN; with finish not NULL, the tiles of the
 * range's last k block go through that stage into C (compute/tile.h). */
void qmm_loops_run(const qmm_job *job, const qmm_range *r, const qmm_c_view *to,
                   const qmm_epilogue *finish, unsigned char *ws);

#endif
