#include "tile.h"

/* Sums into the view: stored, or added with wrap-around. */
static void put_sums(const qmm_c_view *to, size_t i, size_t j, size_t mv, size_t nv,
                     const int32_t *from, size_t from_rs, qmm_tile_mode mode)
{
    int32_t *c = to->c + ((ptrdiff_t)i * to->rs + (ptrdiff_t)j * to->cs);
    for (size_t ii = 0; ii < mv; ii++) {
        int32_t *row = c + (ptrdiff_t)ii * to->rs;
        for (size_t jj = 0; jj < nv; jj++) {
            uint32_t v = from != NULL ? (uint32_t)from[ii * from_rs + jj] : 0;
            if (mode == QMM_TILE_ADD)
                v += (uint32_t)row[(ptrdiff_t)jj * to->cs];
            row[(ptrdiff_t)jj * to->cs] = (int32_t)v;
        }
    }
}

/* dst (rows dst_rs apart) += the view's mv x nv block at (i, j), wrapping:
 * a finishing block's sums completed with those of the earlier steps. */
static void add_view(int32_t *dst, size_t dst_rs, const qmm_c_view *to, size_t i, size_t j,
                     size_t mv, size_t nv)
{
    const int32_t *c = to->c + ((ptrdiff_t)i * to->rs + (ptrdiff_t)j * to->cs);
    const ptrdiff_t cs = to->cs;
    for (size_t ii = 0; ii < mv; ii++) {
        uint32_t *restrict d = (uint32_t *)(dst + ii * dst_rs);
        const int32_t *restrict row = c + (ptrdiff_t)ii * to->rs;
        /* Contiguous rows (the sums buffer of a stage) in whole vectors. */
        if (cs == 1)
            for (size_t jj = 0; jj < nv; jj++)
                d[jj] += (uint32_t)row[jj];
        else
            for (size_t jj = 0; jj < nv; jj++)
                d[jj] += (uint32_t)row[(ptrdiff_t)jj * cs];
    }
}

enum { PUT_RUN = 256 };
_Static_assert(QMM_MAX_TILE <= QMM_EPILOGUE_MAX_BLOCK && PUT_RUN <= QMM_EPILOGUE_MAX_BLOCK,
               "the stage takes a whole tile, and a run of a row, at once");

void qmm_tile_put(const qmm_c_view *to, const qmm_epilogue *finish, size_t i, size_t j,
                  size_t mv, size_t nv, const int32_t *from, size_t from_rs,
                  qmm_tile_mode mode)
{
    if (finish == NULL) {
        put_sums(to, i, j, mv, nv, from, from_rs, mode);
        return;
    }
    /* A run of a row at a time: completed in a local array, then finished. */
    int32_t run[PUT_RUN];
    for (size_t ii = 0; ii < mv; ii++)
        for (size_t j0 = 0; j0 < nv; j0 += PUT_RUN) {
            const size_t len = nv - j0 < PUT_RUN ? nv - j0 : PUT_RUN;
            for (size_t jj = 0; jj < len; jj++)
                run[jj] = from != NULL ? from[ii * from_rs + j0 + jj] : 0;
            if (mode == QMM_TILE_ADD)
                add_view(run, 0, to, i + ii, j + j0, 1, len);
            qmm_epilogue_tile(finish, i + ii, j + j0, 1, len, run, 0, 1);
        }
}

/* A tile's sums (rows sums_rs apart) completed and through the stage. */
static void finish_tile(const qmm_c_view *to, const qmm_epilogue *finish, size_t i, size_t j,
                        size_t mv, size_t nv, int32_t *sums, size_t sums_rs, qmm_tile_mode mode)
{
    if (mode == QMM_TILE_ADD)
        add_view(sums, sums_rs, to, i, j, mv, nv);
    qmm_epilogue_tile(finish, i, j, mv, nv, sums, (ptrdiff_t)sums_rs, 1);
}

void qmm_tile_pipe_init(qmm_tile_pipe *pipe)
{
    pipe->next = 0;
    pipe->pending = 0;
}

/* The pending tile, in the slot the next tile does not use. */
static void finish_pending(void *context)
{
    qmm_tile_pipe *p = context;
    const qmm_pending_tile *t = &p->tile;
    p->pending = 0;
    finish_tile(t->to, t->finish, t->i, t->j, t->mv, t->nv, p->slot[p->next ^ 1u], t->nr,
                t->mode);
}

void qmm_tile_pipe_flush(qmm_tile_pipe *pipe)
{
    if (pipe->pending)
        finish_pending(pipe);
}

void qmm_tile_compute(const qmm_kernel *kern, size_t kp, const void *ap, const void *bp,
                      const qmm_c_view *to, const qmm_epilogue *finish, size_t i, size_t j,
                      size_t mv, size_t nv, qmm_tile_mode mode, qmm_tile_pipe *pipe)
{
    const unsigned mr = kern->mr, nr = kern->nr;
    /* Straight into the view: plain sums only. A stage, an int32 C's
     * additions included, reads the sums from the scratch tile, in L1, and
     * writes C once: finishing C in place read back what the kernel had just
     * stored there, which on AMX took as long as the rest of the stage. */
    if (finish == NULL && mode == QMM_TILE_STORE && nv == nr &&
        (mv == mr || kern->run_rows != NULL)) {
        int32_t *c = to->c + ((ptrdiff_t)i * to->rs + (ptrdiff_t)j * to->cs);
        if (mv == mr)
            kern->run(kp, ap, bp, c, to->rs, to->cs);
        else
            kern->run_rows((unsigned)mv, kp, ap, bp, c, to->rs, to->cs);
        return;
    }
    if (finish != NULL)
        qmm_epilogue_prefetch(finish, i, j, mv, nv);
    if (finish != NULL && pipe != NULL && mv == mr) {
        /* Every kernel's full tiles take this one path; only those with
         * run_overlap gain from it. */
        const qmm_meanwhile before = {finish_pending, pipe};
        const qmm_meanwhile *meanwhile = pipe->pending ? &before : NULL;
        int32_t *sums = pipe->slot[pipe->next];
        if (kern->run_overlap != NULL) {
            kern->run_overlap(kp, ap, bp, sums, (ptrdiff_t)nr, 1, meanwhile);
        } else {
            kern->run(kp, ap, bp, sums, (ptrdiff_t)nr, 1);
            if (meanwhile != NULL)
                finish_pending(pipe);
        }
        pipe->pending = 1;
        pipe->next ^= 1u;
        pipe->tile = (qmm_pending_tile){to, finish, i, j, mv, nv, nr, mode};
        return;
    }
    int32_t scratch[QMM_MAX_TILE];
    if (mv < mr && kern->run_rows != NULL)
        kern->run_rows((unsigned)mv, kp, ap, bp, scratch, (ptrdiff_t)nr, 1);
    else
        kern->run(kp, ap, bp, scratch, (ptrdiff_t)nr, 1);
    if (finish == NULL) {
        put_sums(to, i, j, mv, nv, scratch, nr, mode);
        return;
    }
    finish_tile(to, finish, i, j, mv, nv, scratch, nr, mode);
}
