#include "loops.h"

#include "packed_a.h"
#include "workspace.h"

/* Where a task's A panels come from. */
typedef enum a_source {
    A_PACKED,     /* the plan's packed A */
    A_IN_PLACE,   /* A's own rows; a last partial panel packed */
    A_BY_BLOCKS,  /* packed one A block at a time, right before its tiles, for each B block */
    A_BY_DEPTH,   /* the range's rows packed once per k block (B has several blocks,
                     and they fit in the blocking's a_rows) */
} a_source;

static size_t round_up(size_t x, size_t d)
{
    return qmm_ceil_div(x, d) * d;
}

int qmm_a_in_place(const qmm_kernel *kern, size_t k, size_t kp, ptrdiff_t rsa, ptrdiff_t csa)
{
    const qmm_pack_format *f = kern->a_format;
    return f->k_inner && f->elem_bytes == 1 && k == kp && csa == 1 && rsa == (ptrdiff_t)kp &&
           qmm_pack_panel_bytes(f, kern->mr, kp) == (size_t)kern->mr * kp;
}

int qmm_loops_a_in_place(const qmm_job *job)
{
    return job->packed_a == NULL && job->blk.k_blocks == 1 &&
           qmm_a_in_place(job->kern, job->k, job->blk.kp, job->rsa, job->csa);
}

static a_source source_of(const qmm_job *job, const qmm_range *r)
{
    if (job->packed_a != NULL)
        return A_PACKED;
    if (qmm_loops_a_in_place(job))
        return A_IN_PLACE;
    if (r->j1 - r->j0 <= job->blk.nc || r->i1 - r->i0 > job->blk.a_rows)
        return A_BY_BLOCKS;
    return A_BY_DEPTH;
}

/* Columns of the range's B blocks, and bytes of the workspace's B part. */
static size_t b_block_bytes(const qmm_job *job, const qmm_range *r)
{
    size_t cols = round_up(r->j1 - r->j0, job->kern->nr);
    if (cols > job->blk.nc)
        cols = job->blk.nc;
    return round_up(cols / job->kern->nr * job->blk.b_panel, QMM_WORKSPACE_ALIGN);
}

static size_t a_part_bytes(const qmm_job *job, const qmm_range *r)
{
    const qmm_blocking *blk = &job->blk;
    size_t rows = r->i1 - r->i0, panels;
    switch (source_of(job, r)) {
    case A_PACKED:
        return 0;
    case A_IN_PLACE:
        return blk->a_panel;
    case A_BY_BLOCKS:
        panels = qmm_ceil_div(rows < blk->mc ? rows : blk->mc, job->kern->mr);
        break;
    default:
        panels = qmm_ceil_div(rows, job->kern->mr);
        break;
    }
    return panels > SIZE_MAX / blk->a_panel ? 0 : panels * blk->a_panel;
}

size_t qmm_loops_workspace(const qmm_job *job, const qmm_range *r)
{
    size_t b = b_block_bytes(job, r), a = a_part_bytes(job, r);
    if (a == 0 && source_of(job, r) != A_PACKED)
        return 0;
    return a > SIZE_MAX - b ? 0 : a + b;
}

/* Packs rows [i, i + rows) of A's depths for k block kb into dst. */
static void pack_a_rows(const qmm_job *job, size_t kb, size_t i, size_t rows,
                        unsigned char *dst)
{
    const qmm_blocking *blk = &job->blk;
    qmm_pack_panels(job->kern->a_format, job->kern->mr, qmm_block_depth(blk, kb),
                    job->a + (ptrdiff_t)i * job->rsa + (ptrdiff_t)(kb * blk->kc) * job->csa,
                    job->rsa, job->csa, rows, qmm_block_source_depth(blk, job->k, kb), dst);
}

/* Packs columns [j, j + cols) of B's depths for k block kb into dst. */
static void pack_b_block(const qmm_job *job, size_t kb, size_t j, size_t cols,
                         unsigned char *dst)
{
    const qmm_blocking *blk = &job->blk;
    qmm_pack_panels(job->kern->b_format, job->kern->nr, qmm_block_depth(blk, kb),
                    job->b + (ptrdiff_t)(kb * blk->kc) * job->rsb + (ptrdiff_t)j * job->csb,
                    job->csb, job->rsb, cols, qmm_block_source_depth(blk, job->k, kb), dst);
}

/* One A block (rows [ic, ic + rows)) against one packed B block (columns
 * [jc, jc + cols)) at k block kb: a panel at a time of each. */
typedef struct block_pair {
    size_t kb, kp, a_panel, b_panel;  /* the k block, its padded depth, its panels' bytes */
    size_t ic, rows, jc, cols;
    const unsigned char *a;  /* the block's first A panel, or NULL: A's rows in place */
    const unsigned char *a_last;  /* in place: the packed last partial panel */
    const unsigned char *b;
    qmm_tile_mode mode;
    const qmm_epilogue *finish;  /* the stage, in the range's last k block when it finishes C */
} block_pair;

static void walk_tiles(const qmm_job *job, const block_pair *w, const qmm_c_view *to)
{
    const qmm_kernel *kern = job->kern;
    const unsigned mr = kern->mr, nr = kern->nr;
    for (size_t jr = 0; jr < w->cols; jr += nr) {
        const unsigned char *bp = w->b + jr / nr * w->b_panel;
        size_t nv = w->cols - jr < nr ? w->cols - jr : nr;
        for (size_t ir = 0; ir < w->rows; ir += mr) {
            size_t i = w->ic + ir;
            size_t mv = w->rows - ir < mr ? w->rows - ir : mr;
            const void *ap = w->a != NULL ? w->a + ir / mr * w->a_panel
                             : mv == mr   ? (const void *)(job->a + (ptrdiff_t)i * job->rsa)
                                          : w->a_last;
            qmm_tile_compute(kern, w->kp, ap, bp, to, w->finish, i, w->jc + jr, mv, nv, w->mode);
        }
    }
}

void qmm_loops_run(const qmm_job *job, const qmm_range *r, const qmm_c_view *to,
                   const qmm_epilogue *finish, unsigned char *ws)
{
    const qmm_blocking *blk = &job->blk;
    const unsigned mr = job->kern->mr;
    const a_source source = source_of(job, r);
    unsigned char *pb = ws, *pa = ws + b_block_bytes(job, r);
    qmm_kernel_begin(job->kern);
    for (size_t kb = r->kb0; kb < r->kb1; kb++) {
        block_pair w = {.kb = kb,
                        .kp = qmm_block_depth(blk, kb),
                        .a_panel = qmm_block_a_panel(job->kern, blk, kb),
                        .b_panel = qmm_block_b_panel(job->kern, blk, kb),
                        .mode = kb == r->kb0 ? QMM_TILE_STORE : QMM_TILE_ADD,
                        .finish = kb + 1 == r->kb1 ? finish : NULL};
        if (source == A_BY_DEPTH)
            pack_a_rows(job, kb, r->i0, r->i1 - r->i0, pa);
        for (w.jc = r->j0; w.jc < r->j1; w.jc += blk->nc) {
            w.cols = r->j1 - w.jc < blk->nc ? r->j1 - w.jc : blk->nc;
            pack_b_block(job, kb, w.jc, w.cols, pb);
            w.b = pb;
            for (w.ic = r->i0; w.ic < r->i1; w.ic += blk->mc) {
                w.rows = r->i1 - w.ic < blk->mc ? r->i1 - w.ic : blk->mc;
                switch (source) {
                case A_PACKED:
                    w.a = qmm_packed_a_panel(job->kern, blk, job->m, job->packed_a, kb, w.ic);
                    break;
                case A_IN_PLACE:
                    w.a = NULL;
                    w.a_last = pa;
                    if (w.rows % mr != 0)
                        pack_a_rows(job, kb, w.ic + w.rows / mr * mr, w.rows % mr, pa);
                    break;
                case A_BY_BLOCKS:
                    pack_a_rows(job, kb, w.ic, w.rows, pa);
                    w.a = pa;
                    break;
                case A_BY_DEPTH:
                    w.a = pa + (w.ic - r->i0) / mr * w.a_panel;
                    break;
                }
                walk_tiles(job, &w, to);
            }
        }
    }
    qmm_kernel_end(job->kern);
}
