#include "loops.h"

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

/* One A block (rows [ic, ic + rows)) against one B block (columns
 * [jc, jc + cols)) at k block kb: a panel at a time of each. */
typedef struct block_pair {
    size_t kp, a_panel, b_panel;  /* the k block's padded depth, its panels' bytes */
    size_t ic, rows, jc, cols;
    const unsigned char *a;       /* the block's first A panel, or NULL: A's rows in place */
    const unsigned char *a_last;  /* in place: the packed last partial panel */
    const unsigned char *b;
    qmm_tile_mode mode;
    const qmm_epilogue *finish;   /* the stage, in the range's last k block when it finishes C */
} block_pair;

/* Returns the tiles computed. */
static size_t walk_tiles(const qmm_job *job, const block_pair *w, const qmm_c_view *to)
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
    return qmm_ceil_div(w->cols, nr) * qmm_ceil_div(w->rows, mr);
}

void qmm_loops_run(const qmm_job *job, const qmm_panels *a, const qmm_panels *b,
                   const qmm_range *r, const qmm_task_out *out, qmm_work *done)
{
    const qmm_blocking *blk = &job->blk;
    const unsigned mr = job->kern->mr, nr = job->kern->nr;
    const int in_place = qmm_loops_a_in_place(job);
    qmm_kernel_begin(job->kern);
    for (size_t kb = r->kb0; kb < r->kb1; kb++) {
        const unsigned kind = qmm_block_kind(blk, kb);
        block_pair w = {.kp = blk->depth[kind],
                        .a_panel = blk->a_panel[kind],
                        .b_panel = blk->b_panel[kind],
                        .mode = kb == r->kb0 && out->fresh ? QMM_TILE_STORE : QMM_TILE_ADD,
                        .finish = kb + 1 == r->kb1 ? out->finish : NULL};
        for (w.jc = r->j0; w.jc < r->j1; w.jc += blk->nc) {
            w.cols = r->j1 - w.jc < blk->nc ? r->j1 - w.jc : blk->nc;
            const size_t pb = w.jc / nr;
            done->packed_b += qmm_panels_ready(b, blk, kb, pb, qmm_ceil_div(w.jc + w.cols, nr));
            w.b = qmm_panels_at(b, blk, kb, pb);
            for (w.ic = r->i0; w.ic < r->i1; w.ic += blk->mc) {
                w.rows = r->i1 - w.ic < blk->mc ? r->i1 - w.ic : blk->mc;
                const size_t pa = w.ic / mr, pa_end = qmm_ceil_div(w.ic + w.rows, mr);
                if (!in_place) {
                    done->packed_a += qmm_panels_ready(a, blk, kb, pa, pa_end);
                    w.a = qmm_panels_at(a, blk, kb, pa);
                } else if (w.rows % mr != 0) {
                    done->packed_a += qmm_panels_ready(a, blk, kb, pa_end - 1, pa_end);
                    w.a_last = qmm_panels_at(a, blk, kb, pa_end - 1);
                }
                done->tiles += walk_tiles(job, &w, out->to);
            }
        }
    }
    qmm_kernel_end(job->kern);
}
