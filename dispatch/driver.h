/*
 * The driver: packs operands into a kernel's formats and walks the tiles of C.
 *
 * A is packed whole, as ceil(m/mr) panels (a plan packs it once and reuses it),
 * or, in a one-shot product whose B is a single block, a block of mc rows at
 * a time into a reusable workspace (qmm_run_a_by_blocks), or, in a one-shot
 * product whose A is already in the layout of the kernel's panels, not at all:
 * its full panels are read in place (qmm_a_in_place).
 * B is packed a block of columns at a time. Loop order, outermost first:
 * B block (packed, kept in the outer caches), A block (mc rows, sized for L2),
 * B panel (nr columns, stays in L1 across the A panels of the block),
 * A panel. Full tiles are stored straight to C, and so are the tiles of the
 * last A panel that have all nr columns when the kernel has partial rows
 * (run_rows); other tiles that cross the edge of C go through a scratch tile
 * so kernels never handle partial columns.
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

/* Whether A (element (i,p) at a[i*rsa + p*csa]) can be read in place by kern:
 * A is row-major with rows of exactly kp depths (csa == 1, rsa == kp and
 * k == kp, so k is a multiple of the format's kr and no row has padding
 * depths), and kern's A format is K-inner int8 with panels back to back
 * (panel bytes == mr * kp: no alignment padding, no line sums). Then the
 * packed panel of rows [i, i + mr) is byte for byte the source from
 * a + i*rsa, and the driver hands the kernel that address, at any alignment:
 * kernels must read A panels of such formats without assuming the format's
 * alignment. The rows of a last partial panel (m not a multiple of mr) are
 * still packed, as the kernel reads all mr rows. */
int qmm_a_in_place(const qmm_kernel *kern, size_t k, size_t kp, ptrdiff_t rsa, ptrdiff_t csa);

/* C = A.B with A already packed by qmm_pack_a(). Only allocation can fail. */
qmm_status qmm_run_packed_a(const qmm_kernel *kern, size_t m, size_t n, size_t k,
                            size_t kp, const void *packed_a,
                            const int8_t *b, ptrdiff_t rsb, ptrdiff_t csb,
                            int32_t *c, ptrdiff_t rsc, ptrdiff_t csc);

/* Whether the n columns of B, at padded depth kp, are one B block for kern:
 * the condition under which qmm_run_a_by_blocks packs each row of A once. */
int qmm_b_fits_one_block(const qmm_kernel *kern, size_t n, size_t kp);

/* C = A.B from A unpacked (element (i,p) at a[i*rsa + p*csa]): the driver
 * packs A one block of mc rows at a time, into a workspace of one block
 * allocated with B's, right before the tiles that read that block, so the
 * packed A is still in the cache and no whole-A allocation is touched. The
 * caller must have checked qmm_b_fits_one_block(kern, n, kp): with B in one
 * block each A block is packed exactly once (with several B blocks it would be
 * packed once per B block, which is correct but slower). Where
 * qmm_a_in_place(kern, k, kp, rsa, csa) holds, A's full panels are read in
 * place instead and only a last partial panel is packed (once per B block), so
 * B may then have any number of blocks. Only allocation can fail. */
qmm_status qmm_run_a_by_blocks(const qmm_kernel *kern, size_t m, size_t n, size_t k,
                               size_t kp, const int8_t *a, ptrdiff_t rsa, ptrdiff_t csa,
                               const int8_t *b, ptrdiff_t rsb, ptrdiff_t csb,
                               int32_t *c, ptrdiff_t rsc, ptrdiff_t csc);

#endif
