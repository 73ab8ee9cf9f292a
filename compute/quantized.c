#include "quantized.h"

#include <string.h>

#include "../output/describe.h"
#include "../pack/operand.h"
#include "../platform/log.h"
#include "work.h"
#include "workspace.h"

/* How far a type's values move to become what the kernel reads: uint8 v is
 * read as int8 v - 128 unless the kernel reads uint8 itself. */
static int32_t moved_by(qmm_type t, int as_is)
{
    return t == QMM_TYPE_U8 && !as_is ? 128 : 0;
}

qmm_side qmm_side_zero_points(const qmm_operand *x, size_t lines, int32_t *neg_zps, int as_is)
{
    const int32_t off = moved_by(x->type, as_is);
    qmm_side s = {.data = off == 0 ? x->data : NULL, .rs = x->rs, .cs = x->cs};
    switch (x->zero_point.per) {
    case QMM_PER_ROW:
    case QMM_PER_COL:
        /* -zp' = -(zp - off), per line */
        for (size_t i = 0; i < lines; i++) {
            neg_zps[i] = off - x->zero_point.values[i];
            s.has_zp |= neg_zps[i] != 0;
        }
        s.neg_zps = neg_zps;
        break;
    case QMM_PER_MATRIX:
        s.neg_zp = off - x->zero_point.value;
        s.has_zp = s.neg_zp != 0;
        break;
    default:
        s.neg_zp = off;
        s.has_zp = off != 0;
        break;
    }
    return s;
}

void qmm_side_data(qmm_side *side, const qmm_operand *x, int is_b, size_t lines, size_t k,
                   int as_is, int want_sums, int32_t *sums, int8_t *copy)
{
    /* Lines and depths in the source: A's rows, or B's columns. */
    const ptrdiff_t ls = is_b ? x->cs : x->rs, ds = is_b ? x->rs : x->cs;
    const int u8 = x->type == QMM_TYPE_U8, flip = u8 && !as_is;
    if (k == 0) {
        /* No data to read (it may be NULL): the sums are zero. */
        for (size_t i = 0; want_sums && i < lines; i++)
            sums[i] = 0;
        side->sums = want_sums ? sums : side->sums;
        return;
    }
    if (!flip && !want_sums)
        return;
    qmm_operand_copy cp = qmm_operand_copy_layout(copy, lines, k, ls);
    qmm_operand_prepare(x->data, ls, ds, lines, k, u8 ? 0x80 : 0, flip ? &cp : NULL,
                        want_sums ? sums : NULL);
    /* Read as is, uint8 sums are the flipped ones plus 128 per depth. */
    for (size_t i = 0; want_sums && u8 && !flip && i < lines; i++)
        sums[i] = (int32_t)((uint32_t)sums[i] + 128u * (uint32_t)k);
    if (want_sums)
        side->sums = sums;
    if (flip) {
        side->data = cp.data;
        side->rs = is_b ? cp.ds : cp.ls;
        side->cs = is_b ? cp.ls : cp.ds;
    }
}

/* Bytes of a call's operand buffer: 4 int32 per row and per column (moved
 * zero points, sums, corrections) and the uint8 copies; 0 on overflow. */
static size_t operand_bytes(size_t m, size_t n, size_t k, int copy_a, int copy_b)
{
    const size_t most = (SIZE_MAX - QMM_WORKSPACE_ALIGN) / 16;
    if (m > most || n > most - m)
        return 0;
    size_t bytes = 4 * sizeof(int32_t) * (m + n) + QMM_WORKSPACE_ALIGN;
    const size_t lines[2] = {copy_a ? m : 0, copy_b ? n : 0};
    for (int s = 0; s < 2; s++) {
        if (lines[s] != 0 && k > (SIZE_MAX - bytes) / lines[s])
            return 0;
        bytes += lines[s] * k;
    }
    return bytes;
}

/* A caller's int32 parameter along rows (QMM_PER_ROW, count rows) or columns
 * (QMM_PER_COL) into dst: its values when it has that kind, its one value
 * along rows when it is per matrix, else zeros. */
static void fill_along(int32_t *dst, size_t count, const qmm_i32_param *bias, qmm_per along)
{
    if (bias->per == along) {
        memcpy(dst, bias->values, count * sizeof *dst);
    } else if (bias->per == QMM_PER_MATRIX && along == QMM_PER_ROW) {
        for (size_t i = 0; i < count; i++)
            dst[i] = bias->value;
    } else {
        memset(dst, 0, count * sizeof *dst);
    }
}

/* The int32 additions into e, in the job's coordinates: the bias and the
 * zero points' corrections (quantized.h), gathered into one value per row
 * (row_fix, m int32) and one per column (col_fix, n int32) where a factor is
 * one value, else terms. late, when not NULL, is where the job adds up B's
 * column sums as it packs B, each times the factor returned (they are not
 * known yet): it then starts as the column additions, the sums' correction
 * added to them as they come, or as zeros, a term's column factor. */
static uint32_t add_corrections(qmm_epilogue *e, const qmm_output *out, const qmm_side *a,
                                const qmm_side *b, atomic_uint *late, size_t m, size_t n,
                                size_t k, int transposed, int32_t *row_fix, int32_t *col_fix,
                                int32_t *ra)
{
    const qmm_along rows = qmm_along_of(QMM_PER_ROW, transposed),
                    cols = qmm_along_of(QMM_PER_COL, transposed);
    const qmm_i32_param *bias = &out->bias;
    int by_row = bias->per == QMM_PER_ROW || bias->per == QMM_PER_MATRIX;
    int by_col = bias->per == QMM_PER_COL;
    uint32_t late_factor = 1;
    fill_along(row_fix, m, bias, QMM_PER_ROW);
    fill_along(col_fix, n, bias, QMM_PER_COL);
    if (b->has_zp) {
        /* -zb'(j) * (ra(i) - k za'(i)) */
        for (size_t i = 0; i < m; i++) {
            uint32_t za = (uint32_t)(a->neg_zps != NULL ? a->neg_zps[i] : a->neg_zp);
            ra[i] = (int32_t)((uint32_t)a->sums[i] + (uint32_t)k * za);
        }
        if (b->neg_zps == NULL) {
            for (size_t i = 0; i < m; i++)
                row_fix[i] = (int32_t)((uint32_t)row_fix[i] + (uint32_t)ra[i] * (uint32_t)b->neg_zp);
            by_row = 1;
        } else {
            e->term[e->terms][0] = (qmm_ivec){ra, rows};
            e->term[e->terms++][1] = (qmm_ivec){b->neg_zps, cols};
        }
    }
    if (a->has_zp) {
        /* -za'(i) * cb(j) */
        if (late != NULL) {
            const int fold = a->neg_zps == NULL;
            for (size_t j = 0; j < n; j++)
                atomic_init(&late[j], fold ? (unsigned)col_fix[j] : 0u);
            if (fold) {
                col_fix = (int32_t *)(void *)late;
                by_col = 1;
                late_factor = (uint32_t)a->neg_zp;
            } else {
                e->term[e->terms][0] = (qmm_ivec){a->neg_zps, rows};
                e->term[e->terms++][1] = (qmm_ivec){(const int32_t *)(void *)late, cols};
            }
        } else if (a->neg_zps == NULL) {
            for (size_t j = 0; j < n; j++)
                col_fix[j] = (int32_t)((uint32_t)col_fix[j] + (uint32_t)b->sums[j] * (uint32_t)a->neg_zp);
            by_col = 1;
        } else {
            e->term[e->terms][0] = (qmm_ivec){a->neg_zps, rows};
            e->term[e->terms++][1] = (qmm_ivec){b->sums, cols};
        }
    }
    const int32_t *job_rows = transposed ? col_fix : row_fix, *job_cols = transposed ? row_fix : col_fix;
    const int rows_used = transposed ? by_col : by_row, cols_used = transposed ? by_row : by_col;
    e->row_add = rows_used ? job_rows : NULL;
    e->col_add = cols_used ? job_cols : NULL;
    return late_factor;
}

/* Whether the job's kernel has a twin for a uint8 A (kernels/kernel.h) that
 * can read the caller's operand on the job's A side as it is: that operand
 * is prepared here (not a plan's weights) and uint8. */
static int job_reads_u8(const qmm_gemm_desc *d, const qmm_job *base, int transposed,
                        int prepare_a, int prepare_b)
{
    const qmm_operand *ja = transposed ? &d->b : &d->a;
    const int prepared = transposed ? prepare_b : prepare_a;
    return prepared && ja->type == QMM_TYPE_U8 && base->packed_a == NULL &&
           base->kern->u8_a != NULL;
}

qmm_status qmm_quantized_run(const qmm_gemm_desc *d, qmm_job *base, int transposed, qmm_side a,
                             int prepare_a, qmm_side b, int prepare_b)
{
    const size_t m = d->m, n = d->n, k = d->k;
    const int as_is = job_reads_u8(d, base, transposed, prepare_a, prepare_b);
    const int a_as_is = as_is && !transposed, b_as_is = as_is && transposed;
    const int copy_a = prepare_a && d->a.type == QMM_TYPE_U8 && !a_as_is && k > 0,
              copy_b = prepare_b && d->b.type == QMM_TYPE_U8 && !b_as_is && k > 0;
    const size_t bytes = operand_bytes(m, n, k, copy_a, copy_b);
    if (bytes == 0) {
        qmm_log("out of memory: the prepared operands of m=%zu n=%zu k=%zu overflow size_t", m,
                n, k);
        return QMM_ERR_NO_MEMORY;
    }
    size_t got;
    unsigned char *ws = qmm_workspace_take(QMM_WS_OPERANDS, bytes, &got);
    if (ws == NULL) {
        qmm_log("out of memory: %zu bytes for the prepared operands", bytes);
        return QMM_ERR_NO_MEMORY;
    }
    int32_t *neg_zps_a = (int32_t *)(void *)ws, *neg_zps_b = neg_zps_a + m;
    int32_t *sums_a = neg_zps_b + n, *sums_b = sums_a + m;
    int32_t *row_fix = sums_b + n, *col_fix = row_fix + m, *ra = col_fix + n;
    int8_t *copy = (int8_t *)(ra + m + n);
    if (prepare_a)
        a = qmm_side_zero_points(&d->a, m, neg_zps_a, a_as_is);
    if (prepare_b)
        b = qmm_side_zero_points(&d->b, n, neg_zps_b, b_as_is);
    if (prepare_a)
        qmm_side_data(&a, &d->a, 0, m, k, a_as_is, b.has_zp, sums_a, copy);
    /* B's column sums added up by the tasks as they pack it, where they
     * pack all of it from the caller's int8 (a uint8 B's copy is one pass
     * that sums too): no pass of their own. */
    atomic_uint *late = prepare_b && a.has_zp && !transposed && base->packed_b == NULL &&
                                !copy_b && k > 0
                            ? (atomic_uint *)(void *)sums_b
                            : NULL;
    if (prepare_b)
        qmm_side_data(&b, &d->b, 1, n, k, b_as_is, a.has_zp && late == NULL, sums_b,
                      copy + (copy_a ? m * k : 0));

    qmm_epilogue e, twin;
    qmm_epilogue_describe(&e, &d->c, transposed);
    const uint32_t late_factor =
        add_corrections(&e, &d->c, &a, &b, late, m, n, k, transposed, row_fix, col_fix, ra);
    qmm_epilogue_pair_twin(&e, &twin);

    qmm_job job = *base;
    if (as_is)
        job.kern = base->kern->u8_a;
    job.k = k;
    job.m = transposed ? n : m;
    job.n = transposed ? m : n;
    const qmm_side *ja = transposed ? &b : &a, *jb = transposed ? &a : &b;
    job.a = ja->data;
    job.rsa = transposed ? ja->cs : ja->rs;
    job.csa = transposed ? ja->rs : ja->cs;
    job.b = jb->data;
    job.rsb = transposed ? jb->cs : jb->rs;
    job.csb = transposed ? jb->rs : jb->cs;
    job.b_sums = late;
    job.b_sums_factor = late_factor;
    job.epi = qmm_epilogue_is_plain(&e) ? NULL : &e;
    if (d->c.type == QMM_TYPE_I32)
        job.c = (qmm_c_view){d->c.data, e.rs, e.cs};
    qmm_status st = qmm_job_run(&job);
    qmm_workspace_return(QMM_WS_OPERANDS, ws, got);
    if (st == QMM_OK) {
        qmm_work done = qmm_work_last();
        done.copied = (copy_a ? m * k : 0) + (copy_b ? n * k : 0);
        qmm_work_record(&done);
    }
    return st;
}
