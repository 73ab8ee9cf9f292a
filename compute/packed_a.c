#include "packed_a.h"

#include "threads.h"

/* Packing under PACK_BYTES_PER_THREAD bytes per thread uses fewer threads:
 * below it a team's fork and join cost more than the packing saves. */
#define PACK_BYTES_PER_THREAD ((size_t)1 << 20)

size_t qmm_packed_a_bytes(const qmm_kernel *kern, const qmm_blocking *blk, size_t m)
{
    const size_t panels = qmm_ceil_div(m, kern->mr);
    const size_t last = qmm_block_a_panel(kern, blk, blk->k_blocks - 1);
    if (panels > SIZE_MAX / blk->a_panel || panels * blk->a_panel > SIZE_MAX / blk->k_blocks)
        return 0;
    /* Every block but the last at blk->a_panel per panel, the last at its own. */
    return (blk->k_blocks - 1) * panels * blk->a_panel + panels * last;
}

const unsigned char *qmm_packed_a_panel(const qmm_kernel *kern, const qmm_blocking *blk,
                                        size_t m, const unsigned char *packed, size_t kb,
                                        size_t row)
{
    const size_t panels = qmm_ceil_div(m, kern->mr);
    return packed + kb * panels * blk->a_panel + row / kern->mr * qmm_block_a_panel(kern, blk, kb);
}

typedef struct fill_task {
    const qmm_kernel *kern;
    const qmm_blocking *blk;
    size_t m, k, panels_per_task;
    const int8_t *a;
    ptrdiff_t rsa, csa;
    unsigned char *dst;
} fill_task;

/* Task t: its panels' rows, in every k block. */
static void fill(void *context, size_t t)
{
    const fill_task *f = context;
    const unsigned mr = f->kern->mr;
    size_t first = t * f->panels_per_task * mr;
    if (first >= f->m)
        return;
    size_t rows = f->m - first < f->panels_per_task * mr ? f->m - first
                                                          : f->panels_per_task * mr;
    for (size_t kb = 0; kb < f->blk->k_blocks; kb++) {
        size_t p0 = kb * f->blk->kc;
        qmm_pack_panels(f->kern->a_format, mr, qmm_block_depth(f->blk, kb),
                        f->a + (ptrdiff_t)first * f->rsa + (ptrdiff_t)p0 * f->csa, f->rsa,
                        f->csa, rows, qmm_block_source_depth(f->blk, f->k, kb),
                        (unsigned char *)qmm_packed_a_panel(f->kern, f->blk, f->m, f->dst, kb,
                                                            first));
    }
}

void qmm_packed_a_fill(const qmm_kernel *kern, const qmm_blocking *blk, size_t m, size_t k,
                       const int8_t *a, ptrdiff_t rsa, ptrdiff_t csa, unsigned char *dst)
{
    const size_t panels = qmm_ceil_div(m, kern->mr);
    size_t worth = qmm_packed_a_bytes(kern, blk, m) / PACK_BYTES_PER_THREAD;
    qmm_team team = qmm_team_join(worth < 1 ? 1 : worth);
    size_t tasks = team.threads < panels ? team.threads : panels;
    fill_task f = {kern, blk, m, k, qmm_ceil_div(panels, tasks), a, rsa, csa, dst};
    qmm_team_run(&team, qmm_ceil_div(panels, f.panels_per_task), fill, &f);
    qmm_team_leave(&team);
}
