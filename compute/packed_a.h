/*
 * A packed whole, as a plan keeps it: for each k block in turn
 * (compute/blocking.h), the ceil(m/mr) panels of that block's depths.
 */
#ifndef QMM_PACKED_A_H
#define QMM_PACKED_A_H

#include <stddef.h>
#include <stdint.h>

#include "../kernels/kernel.h"
#include "blocking.h"

/* Bytes of A packed whole; 0 when that overflows. */
size_t qmm_packed_a_bytes(const qmm_kernel *kern, const qmm_blocking *blk, size_t m);

/* The panel of rows [row, row + mr) (row a multiple of mr) of k block kb. */
const unsigned char *qmm_packed_a_panel(const qmm_kernel *kern, const qmm_blocking *blk,
                                        size_t m, const unsigned char *packed, size_t kb,
                                        size_t row);

/* Packs all of A (element (i,p) at a[i*rsa + p*csa], m x k) into dst, which
 * holds qmm_packed_a_bytes() bytes aligned to QMM_PACK_MAX_ALIGN, on as many
 * threads as its size is worth. */
void qmm_packed_a_fill(const qmm_kernel *kern, const qmm_blocking *blk, size_t m, size_t k,
                       const int8_t *a, ptrdiff_t rsa, ptrdiff_t csa, unsigned char *dst);

#endif
