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
 * [jc, jc + cols)) at k block kb: a panel at a time of each, each panel
 * waited for (it may still be another task's to pack) in the task's turn. */
typedef struct block_pair {
    size_t kb, kp, a_panel, b_panel;  /* the k block, its padded depth, its panels' bytes */
    size_t ic, rows, jc, cols;
    const unsigned char *a;       /* the block's first A panel, or NULL: A's rows in place */
    const unsigned char *a_last;  /* in place: the packed last partial panel */
    const unsigned char *b;
    qmm_tile_mode mode;
    const qmm_epilogue *finish;   /* the stage, in the range's last k block when it finishes C */
} block_pair;

/* Returns the tiles computed. */
static size_t walk_tiles(const qmm_job *job, const qmm_panels *a, const qmm_panels *b,
                         const block_pair *w, const qmm_task_out *out)
{
    const qmm_kernel *kern = job->kern;
    const unsigned mr = kern->mr, nr = kern->nr;
    const size_t b_count = qmm_ceil_div(w->cols, nr), a_count = qmm_ceil_div(w->rows, mr);
    const int in_place = w->a == NULL;
    for (size_t sb = 0; sb < b_count; sb++) {
        const size_t jr = qmm_turn_at(out->b_turn, b_count, sb) * nr;
        qmm_panels_wait(b, w->kb, (w->jc + jr) / nr);
        const unsigned char *bp = w->b + jr / nr * w->b_panel;
        const size_t nv = w->cols - jr < nr ? w->cols - jr : nr;
        for (size_t sa = 0; sa < a_count; sa++) {
            const size_t ir = qmm_turn_at(out->a_turn, a_count, sa) * mr;
            const size_t i = w->ic + ir;
            const size_t mv = w->rows - ir < mr ? w->rows - ir : mr;
            const void *ap;
            if (!in_place) {
                qmm_panels_wait(a, w->kb, i / mr);
                ap = w->a + ir / mr * w->a_panel;
            } else if (mv == mr) {
                ap = job->a + (ptrdiff_t)i * job->rsa;
            } else {
                qmm_panels_wait(a, w->kb, i / mr);
                ap = w->a_last;
            }
            qmm_tile_compute(kern, w->kp, ap, bp, out->to, w->finish, i, w->jc + jr, mv, nv,
                             w->mode);
        }
    }
    return b_count * a_count;
}

void qmm_loops_run(const qmm_job *job, const qmm_panels *a, const qmm_panels *b,
                   const qmm_range *r, const qmm_task_out *out, qmm_work *done)
{
    const qmm_blocking *blk = &job->blk;
    const unsigned mr = job->kern->mr, nr = job->kern->nr;
    const int in_place = qmm_loops_a_in_place(job);
    const size_t b_blocks = qmm_ceil_div(r->j1 - r->j0, blk->nc);
    const size_t a_blocks = qmm_ceil_div(r->i1 - r->i0, blk->mc);
    qmm_kernel_begin(job->kern);
    for (size_t kb = r->kb0; kb < r->kb1; kb++) {
        const unsigned kind = qmm_block_kind(blk, kb);
        block_pair w = {.kb = kb,
                        .kp = blk->depth[kind],
                        .a_panel = blk->a_panel[kind],
                        .b_panel = blk->b_panel[kind],
                        .mode = kb == r->kb0 && out->fresh ? QMM_TILE_STORE : QMM_TILE_ADD,
                        .finish = kb + 1 == r->kb1 ? out->finish : NULL};
        for (size_t sb = 0; sb < b_blocks; sb++) {
            w.jc = r->j0 + qmm_turn_at(out->b_turn, b_blocks, sb) * blk->nc;
            w.cols = r->j1 - w.jc < blk->nc ? r->j1 - w.jc : blk->nc;
            const size_t pb = w.jc / nr;
            done->packed_b += qmm_panels_claim(b, blk, kb, pb, qmm_ceil_div(w.jc + w.cols, nr),
                                               out->b_turn);
            w.b = qmm_panels_at(b, blk, kb, pb);
            for (size_t sa = 0; sa < a_blocks; sa++) {
                w.ic = r->i0 + qmm_turn_at(out->a_turn, a_blocks, sa) * blk->mc;
                w.rows = r->i1 - w.ic < blk->mc ? r->i1 - w.ic : blk->mc;
                const size_t pa = w.ic / mr, pa_end = qmm_ceil_div(w.ic + w.rows, mr);
                if (!in_place) {
                    done->packed_a += qmm_panels_claim(a, blk, kb, pa, pa_end, out->a_turn);
                    w.a = qmm_panels_at(a, blk, kb, pa);
                } else if (w.rows % mr != 0) {
                    done->packed_a += qmm_panels_claim(a, blk, kb, pa_end - 1, pa_end,
                                                       out->a_turn);
                    w.a_last = qmm_panels_at(a, blk, kb, pa_end - 1);
                }
                done->tiles += walk_tiles(job, a, b, &w, out);
            }
        }
    }
    qmm_kernel_end(job->kern);
}
