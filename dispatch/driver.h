/*
 * The driver: packs operands into a kernel's formats and walks the tiles of C.
 *
 * A is packed whole, as ceil(m/mr) panels (a plan packs it once and reuses it).
 * B is packed a block of columns at a time. Loop order, outermost first:
 * B block (packed, kept in the outer caches), A block (mc rows, sized for L2),
 * B panel (nr columns, stays in L1 across the A panels of the block),
 * A panel. Full tiles are stored straight to C; tiles that cross the edge of C
 * go through a scratch tile so kernels never handle partial tiles.
 */
#ifndef QMM_DRIVER_H
#define QMM_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "../kernels/kernel.h"
#include "qmm/qmm.h"

/* Padded depth for kern (k rounded up to its formats' kr); 0 on overflow. */
size_t qmm_kernel_depth(const qmm_kernel *kern, size_t k);

/* Bytes of A packed whole for kern at padded depth kp; 0 on overflow. */
size_t qmm_packed_a_bytes(const qmm_kernel *kern, size_t m, size_t kp);

/* Pack all of A (element (i,p) at a[i*rsa + p*csa]) into dst, which holds
 * qmm_packed_a_bytes() bytes aligned to the format's alignment. */
void qmm_pack_a(const qmm_kernel *kern, size_t m, size_t k, size_t kp,
                const int8_t *a, ptrdiff_t rsa, ptrdiff_t csa, void *dst);

/* C = A.B with A already packed by qmm_pack_a(). Only allocation can fail. */
qmm_status qmm_run_packed_a(const qmm_kernel *kern, size_t m, size_t n, size_t k,
                            size_t kp, const void *packed_a,
                            const int8_t *b, ptrdiff_t rsb, ptrdiff_t csb,
                            int32_t *c, ptrdiff_t rsc, ptrdiff_t csc);

#endif
