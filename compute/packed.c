#include "packed.h"

#include "threads.h"

/* Packing under PACK_BYTES_PER_THREAD bytes per thread uses fewer threads:
 * below it a team's fork and join cost more than the packing saves. */
#define PACK_BYTES_PER_THREAD ((size_t)1 << 20)

qmm_panels qmm_packed(const qmm_kernel *kern, const qmm_blocking *blk, qmm_packed_side side,
                      size_t lines, const int8_t *src, ptrdiff_t ls, ptrdiff_t ds,
                      const unsigned char *data)
{
    const int b = side == QMM_PACKED_B;
    const unsigned r = b ? kern->nr : kern->mr;
    const size_t count = b ? blk->n_panels : blk->m_panels;
    return (qmm_panels){.format = b ? kern->b_format : kern->a_format, .r = r, .src = src,
                        .ls = ls, .ds = ds, .lines = lines,
                        .bytes = b ? blk->b_panel : blk->a_panel,
                        .data = (unsigned char *)data, .count = count};
}

size_t qmm_packed_bytes(const qmm_blocking *blk, qmm_packed_side side)
{
    return side == QMM_PACKED_B
               ? qmm_panels_bytes(blk->b_panel, blk, 0, blk->k_blocks, blk->n_panels)
               : qmm_panels_bytes(blk->a_panel, blk, 0, blk->k_blocks, blk->m_panels);
}

typedef struct fill_task {
    const qmm_panels *x;
    const qmm_blocking *blk;
    size_t panels_per_task;
} fill_task;

/* Task t: its panels, in every k block. */
static void fill(void *context, size_t t)
{
    const fill_task *f = context;
    const size_t first = t * f->panels_per_task, panels = f->x->count;
    if (first >= panels)
        return;
    const size_t count = panels - first < f->panels_per_task ? panels - first : f->panels_per_task;
    for (size_t kb = 0; kb < f->blk->k_blocks; kb++)
        qmm_panels_pack(f->x, f->blk, kb, first, count);
}

void qmm_packed_fill(const qmm_panels *x, const qmm_blocking *blk)
{
    size_t worth = qmm_panels_bytes(x->bytes, blk, 0, blk->k_blocks, x->count) /
                   PACK_BYTES_PER_THREAD;
    qmm_team team = qmm_team_join(worth < 1 ? 1 : worth);
    size_t tasks = team.threads < x->count ? team.threads : x->count;
    fill_task f = {x, blk, qmm_ceil_div(x->count, tasks)};
    qmm_team_run(&team, qmm_ceil_div(x->count, f.panels_per_task), fill, &f);
    qmm_team_leave(&team);
}

void qmm_packed_fill_part(const qmm_panels *x, const qmm_blocking *blk, size_t p0, size_t count,
                          const int8_t *src, ptrdiff_t ls, ptrdiff_t ds)
{
    for (size_t kb = 0; kb < blk->k_blocks; kb++) {
        /* The part as panels of their own, from panel p0 of block kb on. */
        qmm_panels part = *x;
        part.src = src;
        part.ls = ls;
        part.ds = ds;
        part.lines = x->lines - p0 * x->r;
        part.data = (unsigned char *)qmm_panels_at(x, blk, kb, p0);
        part.kb0 = kb;
        part.p0 = 0;
        qmm_panels_pack(&part, blk, kb, 0, count);
    }
}
