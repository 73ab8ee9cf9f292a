/*
 * Blocking: a product's geometry, computed once per job and carried by it (as
 * BLIS's context carries its block sizes): how the depth, rows and columns are
 * cut so that packed panels stay in cache, and the sizes of every panel.
 *
 * The depth is cut into k blocks of kc (padded) depths, the last one shorter:
 * a B panel of kc depths fits in L1 beside its tile, and a kernel sums one
 * block at a time into C (int32 wrap-around addition is associative, so the
 * partial sums give the same bits). Rows go in A blocks of mc (kept in L2
 * while the B panels of a block pass by), columns in B blocks of nc. The
 * targets come from the CPU's cache sizes (platform/cache.h).
 *
 * Every k block but the last has the same depth and panel sizes: the two
 * kinds are kept side by side, indexed by qmm_block_kind().
 */
#ifndef QMM_BLOCKING_H
#define QMM_BLOCKING_H

#include <stddef.h>

#include "../kernels/kernel.h"
#include "qmm/qmm.h"

typedef struct qmm_blocking {
    size_t kp;               /* k padded to the kernel's depth multiple */
    size_t kc;               /* padded depth of every k block but the last */
    size_t k_blocks;         /* ceil(kp / kc) */
    size_t depth[2];         /* padded depth of a k block, by kind */
    size_t source_depth[2];  /* depths of the source a k block covers, by kind */
    size_t a_panel[2], b_panel[2];  /* bytes of one A panel, one B panel, by kind */
    size_t m_panels, n_panels;      /* ceil(m / mr), ceil(n / nr) */
    size_t mc, nc;           /* rows of an A block, columns of a B block: multiples of mr, nr */
} qmm_blocking;

/* The blocking of an m x n x k product on kern (every size >= 1);
 * QMM_ERR_INVALID_ARG, said under QMM_VERBOSE, when its sizes overflow. */
qmm_status qmm_blocking_init(qmm_blocking *blk, const qmm_kernel *kern, size_t m, size_t n,
                             size_t k);

/* x / d rounded up. */
static inline size_t qmm_ceil_div(size_t x, size_t d)
{
    return x / d + (x % d != 0);
}

/* Which kind k block kb is: 0 for a full block, 1 for the last. */
static inline unsigned qmm_block_kind(const qmm_blocking *blk, size_t kb)
{
    return kb + 1 == blk->k_blocks;
}

/* Padded depth of k block kb. */
static inline size_t qmm_block_depth(const qmm_blocking *blk, size_t kb)
{
    return blk->depth[qmm_block_kind(blk, kb)];
}

/* Depths of the source that k block kb covers, from kb * kc on. */
static inline size_t qmm_block_source_depth(const qmm_blocking *blk, size_t kb)
{
    return blk->source_depth[qmm_block_kind(blk, kb)];
}

#endif
