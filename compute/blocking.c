#include "blocking.h"

#include "../platform/cache.h"
#include "../platform/log.h"

/* Cache targets. A B panel, the operand a kernel rereads for every A panel of
 * a block, holds at most the kernel's depth_l1s L1s of depths: one for most
 * (32 KiB on Zen3, where 1024 depths of the 6x16 kernel were measured best),
 * two for the AMX and the VNNI 12x32 kernels, which stream their B panels
 * from L2 as fast (on the AMX Xeon's 48 KiB, with B packed beforehand and
 * int8 C, 2 L1s against 1 ran 2048^3 1.15-1.35x faster on AMX and 1.2x on
 * VNNI, 4096^3 1.2x and 1024x2048x1024 1.1x on AMX: fewer k blocks, fewer
 * passes over C's sums; int32 C at 2048^3 1.1-1.2x, at 512x3072x768 0.94x).
 * An A block stays in L2 while the panels of a B block pass by, and a B
 * block in L2 while the A blocks do: each takes
 * half of L2, but no more than the reach of the first level of the data TLB,
 * 64 pages of 4 KiB on Zen3 and on the AMX Xeons (cpu_features reads no TLB
 * sizes there): past it, on the Xeon's 2 MiB of L2, the AMX kernel (reading
 * A's rows in place, a page apart) ran 1024^3 at 0.88x with 1 MiB A blocks,
 * and at 0.92x on two threads with 1 MiB B blocks. A B block may stretch to
 * 1.5 times its target rather than leave a sliver of columns for a second
 * block. */
#define TLB_REACH ((size_t)64 << 12)
enum { B_BLOCK_STRETCH = 6 /* in quarters of the target */ };

/* Lines per block: a multiple of the panel width r whose packed size stays
 * near target, and at least one panel. */
static size_t block_lines(size_t panel_bytes, unsigned r, size_t target)
{
    size_t panels = target / panel_bytes;
    return (panels == 0 ? 1 : panels) * r;
}

/* Columns per B block: the block target, stretched to all of n when that is
 * at most B_BLOCK_STRETCH quarters of the target. */
static size_t b_block_cols(unsigned nr, size_t n, size_t b_panel, size_t target)
{
    size_t all = qmm_ceil_div(n, nr) * nr;
    size_t nc = block_lines(b_panel, nr, target);
    if (nc >= all || qmm_ceil_div(n, nr) <= target / 4 * B_BLOCK_STRETCH / b_panel)
        return all;
    return nc;
}

/* Depth of a k block: as deep as a B panel of panel_bytes allows, then evened
 * out over the blocks so that the last is not a sliver. */
static size_t block_depth(const qmm_kernel *kern, size_t kp, size_t panel_bytes)
{
    const size_t kr = kern->a_format->kr;
    size_t deepest = panel_bytes / ((size_t)kern->nr * kern->b_format->elem_bytes) / kr * kr;
    if (deepest < kr)
        deepest = kr;
    size_t blocks = qmm_ceil_div(kp, deepest);
    return qmm_ceil_div(qmm_ceil_div(kp, blocks), kr) * kr;
}

qmm_status qmm_blocking_init(qmm_blocking *blk, const qmm_kernel *kern, size_t m, size_t n,
                             size_t k)
{
    const qmm_cpu_caches caches = qmm_cpu_cache_sizes();
    blk->kp = qmm_pack_padded_depth(kern->a_format, k);
    if (blk->kp == 0) {
        qmm_log("invalid argument: k=%zu padded for %s overflows size_t", k, kern->name);
        return QMM_ERR_INVALID_ARG;
    }
    const size_t l1s = kern->depth_l1s > 1 ? kern->depth_l1s : 1;
    blk->kc = block_depth(kern, blk->kp, caches.l1d * l1s);
    blk->k_blocks = qmm_ceil_div(blk->kp, blk->kc);
    blk->depth[0] = blk->kc;
    blk->depth[1] = blk->kp - (blk->k_blocks - 1) * blk->kc;
    blk->source_depth[0] = blk->kc;
    blk->source_depth[1] = k - (blk->k_blocks - 1) * blk->kc;
    for (int kind = 0; kind < 2; kind++) {
        blk->a_panel[kind] = qmm_pack_panel_bytes(kern->a_format, kern->mr, blk->depth[kind]);
        blk->b_panel[kind] = qmm_pack_panel_bytes(kern->b_format, kern->nr, blk->depth[kind]);
    }
    blk->m_panels = qmm_ceil_div(m, kern->mr);
    blk->n_panels = qmm_ceil_div(n, kern->nr);
    const size_t block = caches.l2 / 2 < TLB_REACH ? caches.l2 / 2 : TLB_REACH;
    blk->mc = block_lines(blk->a_panel[0], kern->mr, block);
    if (blk->mc > blk->m_panels * kern->mr)
        blk->mc = blk->m_panels * kern->mr;
    blk->nc = b_block_cols(kern->nr, n, blk->b_panel[0], block);
    return QMM_OK;
}
