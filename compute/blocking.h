/*
 * Blocking: how a product's depth, rows and columns are cut so that packed
 * panels stay in cache and workspaces are bounded by the blocks, not by k.
 *
 * The depth is cut into k blocks of kc (padded) depths, the last one shorter:
 * a B panel of kc depths fits in L1 beside its tile, and a kernel sums one
 * block at a time into C (int32 wrap-around addition is associative, so the
 * partial sums give the same bits). Rows go in A blocks of mc (kept in L2
 * while the B panels of a block pass by), columns in B blocks of nc.
 */
#ifndef QMM_BLOCKING_H
#define QMM_BLOCKING_H

#include <stddef.h>

#include "../kernels/kernel.h"
#include "qmm/qmm.h"

typedef struct qmm_blocking {
    size_t kp;         /* k padded to the kernel's depth multiple */
    size_t kc;         /* padded depth of every k block but the last */
    size_t k_blocks;   /* ceil(kp / kc) */
    size_t mc, nc;     /* rows of an A block, columns of a B block: multiples of mr, nr */
    size_t a_rows;     /* the most rows a task packs at once for a k block (loops.h) */
    size_t a_panel, b_panel;  /* bytes of one A panel, one B panel, kc deep */
} qmm_blocking;

/* The blocking of an m x n x k product on kern (every size >= 1);
 * QMM_ERR_INVALID_ARG, said under QMM_VERBOSE, when its sizes overflow. */
qmm_status qmm_blocking_init(qmm_blocking *blk, const qmm_kernel *kern, size_t m, size_t n,
                             size_t k);

/* Sets the bytes of A's rows a task packs at once for a k block (0 restores
 * the default): tests lower it to 1 so that small products take the path of
 * a very tall A. */
void qmm_blocking_set_a_rows_bytes(size_t bytes);

/* x / d rounded up. */
static inline size_t qmm_ceil_div(size_t x, size_t d)
{
    return x / d + (x % d != 0);
}

/* Padded depth of k block kb. */
static inline size_t qmm_block_depth(const qmm_blocking *blk, size_t kb)
{
    return kb + 1 < blk->k_blocks ? blk->kc : blk->kp - kb * blk->kc;
}

/* Bytes of one A panel and of one B panel of kern in k block kb. */
static inline size_t qmm_block_a_panel(const qmm_kernel *kern, const qmm_blocking *blk,
                                       size_t kb)
{
    return qmm_pack_panel_bytes(kern->a_format, kern->mr, qmm_block_depth(blk, kb));
}

static inline size_t qmm_block_b_panel(const qmm_kernel *kern, const qmm_blocking *blk,
                                       size_t kb)
{
    return qmm_pack_panel_bytes(kern->b_format, kern->nr, qmm_block_depth(blk, kb));
}

/* Depths of the source that k block kb covers, from kb * kc on. */
static inline size_t qmm_block_source_depth(const qmm_blocking *blk, size_t k, size_t kb)
{
    size_t first = kb * blk->kc;
    return k - first < blk->kc ? k - first : blk->kc;
}

#endif
