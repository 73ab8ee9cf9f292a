/*
 * A packed whole, as a plan keeps it: the layout of compute/panels.h with
 * every panel of every k block (kb0 = p0 = 0, count = ceil(m / mr)).
 */
#ifndef QMM_PACKED_A_H
#define QMM_PACKED_A_H

#include <stddef.h>
#include <stdint.h>

#include "../kernels/kernel.h"
#include "panels.h"

/* A plan's packed A (data, of qmm_panels_bytes() over all of it) as panels
 * to read, every one packed; src describes A's source for qmm_packed_a_fill. */
qmm_panels qmm_packed_a(const qmm_kernel *kern, const qmm_blocking *blk, size_t m,
                        const int8_t *src, ptrdiff_t rsa, ptrdiff_t csa,
                        const unsigned char *data);

/* Bytes of A packed whole; 0 when that overflows. */
size_t qmm_packed_a_bytes(const qmm_blocking *blk);

/* Packs all of a (from qmm_packed_a, with its source) into its data, aligned to
 * QMM_PACK_MAX_ALIGN, on as many threads as its size is worth. */
void qmm_packed_a_fill(const qmm_panels *a, const qmm_blocking *blk);

#endif
