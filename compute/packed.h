/*
 * An operand packed whole, as a plan keeps its weights: the layout of
 * compute/panels.h with every panel of every k block (kb0 = p0 = 0, count =
 * every panel), as the job's A (mr-row panels in the kernel's A format) or
 * as its B (nr-column panels in its B format, with the line sums that
 * format carries).
 */
#ifndef QMM_PACKED_H
#define QMM_PACKED_H

#include <stddef.h>
#include <stdint.h>

#include "../kernels/kernel.h"
#include "panels.h"

/* Which operand of the job a packing is. */
typedef enum qmm_packed_side { QMM_PACKED_A, QMM_PACKED_B } qmm_packed_side;

/* The operand packed whole (data, of qmm_packed_bytes()) as panels to read,
 * every one packed: side's `lines` lines (A's m rows, B's n columns), line i,
 * depth p at src[i*ls + p*ds] for qmm_packed_fill. */
qmm_panels qmm_packed(const qmm_kernel *kern, const qmm_blocking *blk, qmm_packed_side side,
                      size_t lines, const int8_t *src, ptrdiff_t ls, ptrdiff_t ds,
                      const unsigned char *data);

/* Bytes of side packed whole; 0 when that overflows. */
size_t qmm_packed_bytes(const qmm_blocking *blk, qmm_packed_side side);

/* Packs all of x (from qmm_packed, with its source) into its data, aligned to
 * QMM_PACK_MAX_ALIGN, on as many threads as its size is worth. */
void qmm_packed_fill(const qmm_panels *x, const qmm_blocking *blk);

/* Packs panels [p0, p0 + count) of every k block of x (from qmm_packed) on
 * the calling thread, from a source that holds their lines alone: line
 * p0 * r + i, depth p at src[i*ls + p*ds]. */
void qmm_packed_fill_part(const qmm_panels *x, const qmm_blocking *blk, size_t p0, size_t count,
                          const int8_t *src, ptrdiff_t ls, ptrdiff_t ds);

#endif
