#include "blocking.h"

#include <stdatomic.h>

#include "../platform/log.h"

/* Cache targets. A block of A stays in L2 while the panels of a block of B
 * pass by; the B block is a task's workspace (256 KiB measured 9% faster than
 * 2 MiB at 1024^3 on Zen3, whose fresh pages glibc maps and unmaps per call). A
 * B block may stretch to 1.5 times its target rather than leave a sliver of
 * columns for a second block. A B panel, the operand a kernel rereads for
 * every A panel of a block, holds at most DEPTH_PANEL_BYTES: the depth of a k
 * block. A task whose B has several blocks packs its rows of A once per k
 * block when they take at most A_ROWS_BYTES, else an A block at a time for
 * each B block: workspaces stay bounded by these targets, whatever m. */
enum {
    A_BLOCK_BYTES = 256 << 10,
    B_BLOCK_BYTES = 256 << 10,
    B_BLOCK_STRETCH = 6, /* in quarters of the target */
    DEPTH_PANEL_BYTES = 32 << 10,
    A_ROWS_BYTES = 4 << 20,
};

/* Lines per block: a multiple of the panel width r whose packed size stays
 * near target, and at least one panel. */
static size_t block_lines(size_t panel_bytes, unsigned r, size_t target)
{
    size_t panels = target / panel_bytes;
    return (panels == 0 ? 1 : panels) * r;
}

/* Columns per B block: the block target, stretched to all of n when that is
 * at most B_BLOCK_STRETCH quarters of the target. */
static size_t b_block_cols(unsigned nr, size_t n, size_t b_panel)
{
    size_t all = qmm_ceil_div(n, nr) * nr;
    size_t nc = block_lines(b_panel, nr, B_BLOCK_BYTES);
    if (nc >= all || qmm_ceil_div(n, nr) <= B_BLOCK_BYTES / 4 * B_BLOCK_STRETCH / b_panel)
        return all;
    return nc;
}

/* Depth of a k block: as deep as DEPTH_PANEL_BYTES allows a B panel, then
 * evened out over the blocks so that the last is not a sliver. */
static size_t block_depth(const qmm_kernel *kern, size_t kp)
{
    const size_t kr = kern->a_format->kr;
    size_t deepest = DEPTH_PANEL_BYTES / ((size_t)kern->nr * kern->b_format->elem_bytes) / kr * kr;
    if (deepest < kr)
        deepest = kr;
    size_t blocks = qmm_ceil_div(kp, deepest);
    return qmm_ceil_div(qmm_ceil_div(kp, blocks), kr) * kr;
}

static atomic_size_t a_rows_target;

void qmm_blocking_set_a_rows_bytes(size_t bytes)
{
    atomic_store_explicit(&a_rows_target, bytes, memory_order_relaxed);
}

qmm_status qmm_blocking_init(qmm_blocking *blk, const qmm_kernel *kern, size_t m, size_t n,
                             size_t k)
{
    blk->kp = qmm_pack_padded_depth(kern->a_format, k);
    if (blk->kp == 0) {
        qmm_log("invalid argument: k=%zu padded for %s overflows size_t", k, kern->name);
        return QMM_ERR_INVALID_ARG;
    }
    blk->kc = block_depth(kern, blk->kp);
    blk->k_blocks = qmm_ceil_div(blk->kp, blk->kc);
    blk->a_panel = qmm_pack_panel_bytes(kern->a_format, kern->mr, blk->kc);
    blk->b_panel = qmm_pack_panel_bytes(kern->b_format, kern->nr, blk->kc);
    blk->mc = block_lines(blk->a_panel, kern->mr, A_BLOCK_BYTES);
    if (blk->mc > m)
        blk->mc = qmm_ceil_div(m, kern->mr) * kern->mr;
    blk->nc = b_block_cols(kern->nr, n, blk->b_panel);
    size_t a_rows_bytes = atomic_load_explicit(&a_rows_target, memory_order_relaxed);
    blk->a_rows = block_lines(blk->a_panel, kern->mr, a_rows_bytes != 0 ? a_rows_bytes
                                                                        : A_ROWS_BYTES);
    return QMM_OK;
}
