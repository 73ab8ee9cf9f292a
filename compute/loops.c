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
                         const block_pair *w, const qmm_task_out *out, qmm_tile_pipe *pipe)
{
    const qmm_kernel *kern = job->kern;
    const unsigned mr = kern->mr, nr = kern->nr;
    const size_t b_count = qmm_ceil_div(w->cols, nr), a_count = qmm_ceil_div(w->rows, mr);
    const size_t a_first = qmm_turn_at(out->a_turn, a_count, 0);
    const int in_place = w->a == NULL;
    for (size_t sb = 0, pb = qmm_turn_at(out->b_turn, b_count, 0); sb < b_count;
         sb++, pb = pb + 1 < b_count ? pb + 1 : 0) {
        qmm_panels_wait(b, w->kb, w->jc / nr + pb);
        const unsigned char *bp = w->b + pb * w->b_panel;
        const size_t jr = pb * nr, nv = w->cols - jr < nr ? w->cols - jr : nr;
        for (size_t sa = 0, pa = a_first; sa < a_count; sa++, pa = pa + 1 < a_count ? pa + 1 : 0) {
            const size_t ir = pa * mr, i = w->ic + ir;
            const size_t mv = w->rows - ir < mr ? w->rows - ir : mr;
            const void *ap;
            if (!in_place) {
                qmm_panels_wait(a, w->kb, i / mr);
                ap = w->a + pa * w->a_panel;
            } else if (mv == mr) {
                ap = job->a + (ptrdiff_t)i * job->rsa;
            } else {
                qmm_panels_wait(a, w->kb, i / mr);
                ap = w->a_last;
            }
            qmm_tile_compute(kern, w->kp, ap, bp, out->to, w->finish, i, w->jc + jr, mv, nv,
                             w->mode, pipe);
        }
    }
    return b_count * a_count;
}

/* Where a task's panels of one operand come from, and how its own are laid
 * out in its region. */
typedef struct own_side {
    int own;            /* the task's own, not shared */
    int by_depth;       /* A: all its rows packed once per k block */
    size_t count;       /* panels its region holds */
    size_t bytes;       /* of the panels, then of their states, aligned */
    size_t state_bytes;
} own_side;

enum { OWN_ALIGN = QMM_PACK_MAX_ALIGN };

static size_t own_aligned(size_t bytes)
{
    return (bytes + OWN_ALIGN - 1) / OWN_ALIGN * OWN_ALIGN;
}

static own_side own_a(const qmm_job *job, const qmm_range *r, const qmm_task_out *out)
{
    const qmm_blocking *blk = &job->blk;
    const unsigned mr = job->kern->mr;
    own_side a = {.own = job->packed_a == NULL && !qmm_loops_a_in_place(job) &&
                         out->a_turn.groups == 1};
    if (!a.own)
        return a;
    const size_t rows = qmm_ceil_div(r->i1, mr) - r->i0 / mr;
    a.by_depth = r->j1 - r->j0 > blk->nc && rows * blk->a_panel[0] <= out->hold_a;
    a.count = a.by_depth || rows < blk->mc / mr ? rows : blk->mc / mr;
    a.bytes = own_aligned(a.count * blk->a_panel[0]);
    a.state_bytes = own_aligned(a.count);
    return a;
}

static own_side own_b(const qmm_job *job, const qmm_range *r, const qmm_task_out *out)
{
    const qmm_blocking *blk = &job->blk;
    const unsigned nr = job->kern->nr;
    own_side b = {.own = job->packed_b == NULL && out->b_turn.groups == 1};
    if (!b.own)
        return b;
    const size_t cols = qmm_ceil_div(r->j1, nr) - r->j0 / nr;
    b.count = cols < blk->nc / nr ? cols : blk->nc / nr;
    b.bytes = own_aligned(b.count * blk->b_panel[0]);
    b.state_bytes = own_aligned(b.count);
    return b;
}

size_t qmm_loops_own_bytes(const qmm_job *job, const qmm_range *r, const qmm_task_out *out)
{
    const own_side a = own_a(job, r, out), b = own_b(job, r, out);
    return a.bytes + a.state_bytes + b.bytes + b.state_bytes;
}

/* The task's own panels of one operand, in its region at *at (moved past
 * them), packed in one call a block. */
static qmm_panels own_panels(const qmm_panels *shared, const own_side *side, unsigned char **at)
{
    qmm_panels x = *shared;
    x.data = *at;
    x.state = (atomic_uchar *)(*at + side->bytes);
    x.run = SIZE_MAX;
    *at += side->bytes + side->state_bytes;
    return x;
}

void qmm_loops_run(const qmm_job *job, const qmm_panels *a, const qmm_panels *b,
                   const qmm_range *r, const qmm_task_out *out, qmm_work *done)
{
    const qmm_blocking *blk = &job->blk;
    const unsigned mr = job->kern->mr, nr = job->kern->nr;
    const int in_place = qmm_loops_a_in_place(job);
    const size_t b_blocks = qmm_ceil_div(r->j1 - r->j0, blk->nc);
    const size_t a_blocks = qmm_ceil_div(r->i1 - r->i0, blk->mc);
    const own_side oa = own_a(job, r, out), ob = own_b(job, r, out);
    unsigned char *at = out->own;
    qmm_panels a_own, b_own;
    if (oa.own)
        a_own = own_panels(a, &oa, &at);
    if (ob.own)
        b_own = own_panels(b, &ob, &at);
    const qmm_panels *as = oa.own ? &a_own : a, *bs = ob.own ? &b_own : b;
    qmm_tile_pipe pipe;
    qmm_tile_pipe_init(&pipe);
    qmm_kernel_begin(job->kern);
    for (size_t kb = r->kb0; kb < r->kb1; kb++) {
        const unsigned kind = qmm_block_kind(blk, kb);
        block_pair w = {.kb = kb,
                        .kp = blk->depth[kind],
                        .a_panel = blk->a_panel[kind],
                        .b_panel = blk->b_panel[kind],
                        .mode = kb == r->kb0 && out->fresh ? QMM_TILE_STORE : QMM_TILE_ADD,
                        .finish = kb + 1 == r->kb1 ? out->finish : NULL};
        if (oa.by_depth)
            qmm_panels_reset(&a_own, kb, kb + 1, r->i0 / mr, oa.count);
        for (size_t sb = 0; sb < b_blocks; sb++) {
            w.jc = r->j0 + qmm_turn_at(out->b_turn, b_blocks, sb) * blk->nc;
            w.cols = r->j1 - w.jc < blk->nc ? r->j1 - w.jc : blk->nc;
            const size_t pb = w.jc / nr, pb_end = qmm_ceil_div(w.jc + w.cols, nr);
            if (ob.own)
                qmm_panels_reset(&b_own, kb, kb + 1, pb, pb_end - pb);
            done->packed_b += qmm_panels_claim(bs, blk, kb, pb, pb_end, out->b_turn);
            w.b = qmm_panels_at(bs, blk, kb, pb);
            for (size_t sa = 0; sa < a_blocks; sa++) {
                w.ic = r->i0 + qmm_turn_at(out->a_turn, a_blocks, sa) * blk->mc;
                w.rows = r->i1 - w.ic < blk->mc ? r->i1 - w.ic : blk->mc;
                const size_t pa = w.ic / mr, pa_end = qmm_ceil_div(w.ic + w.rows, mr);
                if (!in_place) {
                    if (oa.own && !oa.by_depth)
                        qmm_panels_reset(&a_own, kb, kb + 1, pa, pa_end - pa);
                    done->packed_a += qmm_panels_claim(as, blk, kb, pa, pa_end, out->a_turn);
                    w.a = qmm_panels_at(as, blk, kb, pa);
                } else if (w.rows % mr != 0) {
                    done->packed_a += qmm_panels_claim(a, blk, kb, pa_end - 1, pa_end,
                                                       out->a_turn);
                    w.a_last = qmm_panels_at(a, blk, kb, pa_end - 1);
                }
                done->tiles += walk_tiles(job, as, bs, &w, out, &pipe);
            }
        }
    }
    qmm_tile_pipe_flush(&pipe);
    qmm_kernel_end(job->kern);
}
