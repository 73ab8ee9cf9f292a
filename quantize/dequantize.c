/* qmm_dequantize_f32 / _f64: x = (q - zero_point) * scale. */

#include "../compute/ranges.h"
#include "../platform/log.h"
#include "lines.h"
#include "quantize.h"

typedef struct dequantize_call {
    const qmm_lines *lines;
    const unsigned char *q;
    size_t ldq, cols, ldx;
    int is_signed;
    qmm_per per;
    const unsigned char *scales;
    const int32_t *zp;
    unsigned char *x;
} dequantize_call;

static void dequantize_task(void *context, size_t t, size_t lo, size_t hi)
{
    (void)t;
    const dequantize_call *d = context;
    const qmm_lines *l = d->lines;
    const unsigned char *q = d->q + lo * d->ldq;
    void *x = d->x + lo * d->ldx * l->elem;
    if (d->per == QMM_PER_COL) {
        l->dequantize_cols(q, d->ldq, d->is_signed, hi - lo, d->cols, d->scales, d->zp, x, d->ldx);
    } else {
        const size_t step = d->per == QMM_PER_ROW, first = lo * step;
        l->dequantize_rows(q, d->ldq, d->is_signed, hi - lo, d->cols,
                           d->scales + first * l->elem, d->zp ? d->zp + first : NULL, step, x,
                           d->ldx);
    }
}

static qmm_status dequantize(int is_f64, size_t rows, size_t cols, qmm_type type, const void *q,
                             size_t ldq, qmm_per per, const void *scales, const int32_t *zp,
                             void *x, size_t ldx)
{
    if (rows == 0 || cols == 0)
        return QMM_OK;
    if (!qmm_quant_per_ok(per) || !qmm_quant_type_ok(type))
        return QMM_ERR_INVALID_ARG;
    const size_t elem = is_f64 ? sizeof(double) : sizeof(float);
    const size_t lines = qmm_quant_lines(per, rows, cols);
    const qmm_array_arg arr[] = {
        {"X", x, rows, cols, ldx, elem, 1},
        {"Q", q, rows, cols, ldq, 1, 0},
        {"scales", scales, 1, lines, lines, elem, 0},
        {"zero_points", zp, 1, lines, lines, sizeof(int32_t), 0},
    };
    qmm_status st = qmm_quant_check_arrays(arr, zp != NULL ? 4 : 3);
    if (st == QMM_OK)
        st = qmm_quant_check_params(is_f64, scales, zp, lines, type, 1);
    if (st != QMM_OK)
        return st;
    dequantize_call d = {.lines = qmm_lines_pick(is_f64), .q = q, .ldq = ldq, .cols = cols,
                         .ldx = ldx, .is_signed = type == QMM_TYPE_I8, .per = per,
                         .scales = scales, .zp = zp, .x = x};
    qmm_ranges_for(rows, (double)cols, dequantize_task, &d);
    return QMM_OK;
}

qmm_status qmm_dequantize_f32(size_t rows, size_t cols, qmm_type type, const void *q,
                              size_t ldq, qmm_per per, const float *scales,
                              const int32_t *zero_points, float *x, size_t ldx)
{
    return dequantize(0, rows, cols, type, q, ldq, per, scales, zero_points, x, ldx);
}

qmm_status qmm_dequantize_f64(size_t rows, size_t cols, qmm_type type, const void *q,
                              size_t ldq, qmm_per per, const double *scales,
                              const int32_t *zero_points, double *x, size_t ldx)
{
    return dequantize(1, rows, cols, type, q, ldq, per, scales, zero_points, x, ldx);
}
