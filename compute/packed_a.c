#include "packed_a.h"

#include "threads.h"

/* Packing under PACK_BYTES_PER_THREAD bytes per thread uses fewer threads:
 * below it a team's fork and join cost more than the packing saves. */
#define PACK_BYTES_PER_THREAD ((size_t)1 << 20)

qmm_panels qmm_packed_a(const qmm_kernel *kern, const qmm_blocking *blk, size_t m,
                        const int8_t *src, ptrdiff_t rsa, ptrdiff_t csa,
                        const unsigned char *data)
{
    return (qmm_panels){.format = kern->a_format, .r = kern->mr, .src = src, .ls = rsa,
                        .ds = csa, .lines = m, .bytes = blk->a_panel,
                        .data = (unsigned char *)data, .count = blk->m_panels};
}

size_t qmm_packed_a_bytes(const qmm_blocking *blk)
{
    return qmm_panels_bytes(blk->a_panel, blk, 0, blk->k_blocks, blk->m_panels);
}

typedef struct fill_task {
    const qmm_panels *a;
    const qmm_blocking *blk;
    size_t panels_per_task;
} fill_task;

/* Task t: its panels, in every k block. */
static void fill(void *context, size_t t)
{
    const fill_task *f = context;
    const size_t first = t * f->panels_per_task, panels = f->a->count;
    if (first >= panels)
        return;
    const size_t count = panels - first < f->panels_per_task ? panels - first : f->panels_per_task;
    for (size_t kb = 0; kb < f->blk->k_blocks; kb++)
        qmm_panels_pack(f->a, f->blk, kb, first, count);
}

void qmm_packed_a_fill(const qmm_panels *a, const qmm_blocking *blk)
{
    size_t worth = qmm_packed_a_bytes(blk) / PACK_BYTES_PER_THREAD;
    qmm_team team = qmm_team_join(worth < 1 ? 1 : worth);
    size_t tasks = team.threads < a->count ? team.threads : a->count;
    fill_task f = {a, blk, qmm_ceil_div(a->count, tasks)};
    qmm_team_run(&team, qmm_ceil_div(a->count, f.panels_per_task), fill, &f);
    qmm_team_leave(&team);
}
