#include "quantize.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../compute/args.h"
#include "../compute/ranges.h"
#include "../platform/log.h"
#include "lines.h"

size_t qmm_quant_lines(qmm_per per, size_t rows, size_t cols)
{
    return per == QMM_PER_ROW ? rows : per == QMM_PER_COL ? cols : 1;
}

/* ---- the extrema of every line ----------------------------------------- */

typedef struct extrema_pass {
    const qmm_lines *lines;
    const unsigned char *x;
    size_t ldx, cols;
    qmm_per per;
    unsigned char *kmin, *kmax;  /* per column: tasks x cols keys; else rows keys */
} extrema_pass;

static void extrema_task(void *context, size_t t, size_t lo, size_t hi)
{
    const extrema_pass *p = context;
    const qmm_lines *l = p->lines;
    const void *x = p->x + lo * p->ldx * l->elem;
    if (p->per == QMM_PER_COL) {
        const size_t at = t * p->cols * l->elem;
        l->extrema_reset(p->cols, p->kmin + at, p->kmax + at);
        l->extrema_cols(x, p->ldx, hi - lo, p->cols, p->kmin + at, p->kmax + at);
    } else {
        const size_t at = lo * l->elem;
        l->extrema_rows(x, p->ldx, hi - lo, p->cols, p->kmin + at, p->kmax + at);
    }
}

/* The smallest and largest keys of each line, at (*keys)[0 .. lines) and
 * (*keys)[count .. count + lines) in key units; *keys is the caller's to free. */
static qmm_status line_extrema(const qmm_lines *l, const void *x, size_t ldx, size_t rows,
                               size_t cols, qmm_per per, unsigned char **keys, size_t *count)
{
    qmm_ranges r = qmm_ranges_begin(rows, (double)cols);
    /* Per column, every task keeps its own extrema: the tasks' row ranges
     * cover all the columns. Rows and cols fit in PTRDIFF_MAX, tasks in
     * QMM_MAX_THREADS: only the product is checked. */
    size_t n = per == QMM_PER_COL ? cols : rows, slots = per == QMM_PER_COL ? r.tasks : 1;
    if (n > SIZE_MAX / slots / 2 / l->elem ||
        (*keys = malloc(2 * n * slots * l->elem)) == NULL) {
        qmm_ranges_end(&r);
        qmm_log("out of memory: the extrema of %zu lines", n * slots);
        return QMM_ERR_NO_MEMORY;
    }
    *count = n * slots;
    extrema_pass p = {.lines = l, .x = x, .ldx = ldx, .cols = cols, .per = per,
                      .kmin = *keys, .kmax = *keys + *count * l->elem};
    qmm_ranges_run(&r, extrema_task, &p);
    const size_t kb = l->elem;
    if (per == QMM_PER_COL) {
        for (size_t t = 1; t < r.tasks; t++)
            l->extrema_merge(cols, p.kmin, p.kmax, p.kmin + t * cols * kb,
                             p.kmax + t * cols * kb);
    } else if (per == QMM_PER_MATRIX) {
        for (size_t i = 1; i < rows; i++)
            l->extrema_merge(1, p.kmin, p.kmax, p.kmin + i * kb, p.kmax + i * kb);
    }
    qmm_ranges_end(&r);
    return QMM_OK;
}

/* ---- quantization ------------------------------------------------------ */

typedef struct quantize_pass {
    const qmm_quant_job *job;
    const qmm_lines *lines;
    const unsigned char *div;
    const int32_t *zp;
    qmm_qrange range;
} quantize_pass;

static void quantize_task(void *context, size_t t, size_t lo, size_t hi)
{
    (void)t;
    const quantize_pass *p = context;
    const qmm_quant_job *j = p->job;
    const qmm_lines *l = p->lines;
    const void *x = (const unsigned char *)j->x + lo * j->ldx * l->elem;
    unsigned char *q = j->q + lo * j->ldq;
    if (j->per == QMM_PER_COL) {
        l->quantize_cols(x, j->ldx, hi - lo, j->cols, p->div, p->zp, &p->range, q, j->ldq);
    } else {
        const size_t step = j->per == QMM_PER_ROW, first = lo * step;
        l->quantize_rows(x, j->ldx, hi - lo, j->cols, p->div + first * l->elem, p->zp + first,
                         step, &p->range, q, j->ldq);
    }
}

static qmm_qrange range_of(const qmm_quant_job *j)
{
    if (!j->asymmetric && !j->given)
        return (qmm_qrange){-127, 127, 0};
    return j->type == QMM_TYPE_U8 ? (qmm_qrange){0, 255, 1} : (qmm_qrange){-128, 127, 1};
}

/* Line i's divisor and zero point, from its extrema (keys[0 .. count) the
 * smallest, keys[count ..) the largest) or given; 0 when a value is not
 * finite, or a computed asymmetric range overflows. With given parameters
 * the extrema only say whether every value is finite: their largest
 * magnitude goes to scales[i], which is scratch then. */
static int line_params(const qmm_quant_job *j, const qmm_lines *l, const unsigned char *keys,
                       size_t count, size_t i, const qmm_qrange *r, unsigned char *scales,
                       unsigned char *div, int32_t *zp)
{
    const unsigned char *kmin = keys, *kmax = keys + count * l->elem;
    if (!j->given)
        return l->params(kmin, kmax, i, r, scales, div, zp);
    if (!l->max_abs(kmin, kmax, i, scales))
        return 0;
    memcpy(div + i * l->elem, (const unsigned char *)j->given_scales + i * l->elem, l->elem);
    zp[i] = j->given_zero_points != NULL ? j->given_zero_points[i] : 0;
    return 1;
}

qmm_status qmm_quantize_run(const qmm_quant_job *j)
{
    const qmm_lines *l = qmm_lines_pick(j->is_f64);
    const size_t lines = qmm_quant_lines(j->per, j->rows, j->cols);
    unsigned char *keys = NULL, *params = NULL;
    size_t count;
    qmm_status st = line_extrema(l, j->x, j->ldx, j->rows, j->cols, j->per, &keys, &count);
    /* The lines' scales, divisors and zero points; lines <= PTRDIFF_MAX. */
    const size_t bytes = lines * (2 * l->elem + sizeof(int32_t));
    if (st == QMM_OK && (params = malloc(bytes)) == NULL) {
        qmm_log("out of memory: the parameters of %zu lines", lines);
        st = QMM_ERR_NO_MEMORY;
    }
    quantize_pass p = {.job = j, .lines = l, .range = range_of(j)};
    unsigned char *scales = params, *div = params + lines * l->elem;
    int32_t *zp = (int32_t *)(void *)(div + lines * l->elem);
    p.div = div;
    p.zp = zp;
    for (size_t i = 0; st == QMM_OK && i < lines; i++) {
        if (!line_params(j, l, keys, count, i, &p.range, scales, div, zp)) {
            qmm_log("invalid argument: X has a NaN or infinite value%s",
                    j->asymmetric ? ", or a line whose max - min overflows" : "");
            st = QMM_ERR_INVALID_ARG;
        }
    }
    if (st == QMM_OK) {
        qmm_ranges_for(j->rows, (double)j->cols, quantize_task, &p);
        if (!j->given)
            memcpy(j->scales, scales, lines * l->elem);
        if (j->zero_points != NULL)
            memcpy(j->zero_points, zp, lines * sizeof *zp);
    }
    free(params);
    free(keys);
    return st;
}

qmm_status qmm_quantize_max_abs(int is_f64, const void *x, size_t ldx, size_t rows, size_t cols,
                                qmm_per per, void *maxabs)
{
    const qmm_lines *l = qmm_lines_pick(is_f64);
    unsigned char *keys = NULL;
    size_t count;
    qmm_status st = line_extrema(l, x, ldx, rows, cols, per, &keys, &count);
    const size_t lines = qmm_quant_lines(per, rows, cols);
    for (size_t i = 0; st == QMM_OK && i < lines; i++) {
        if (!l->max_abs(keys, keys + count * l->elem, i, maxabs)) {
            qmm_log("invalid argument: a value is NaN or infinite");
            st = QMM_ERR_INVALID_ARG;
        }
    }
    free(keys);
    return st;
}

/* ---- the public calls -------------------------------------------------- */

int qmm_quant_per_ok(qmm_per per)
{
    if (per == QMM_PER_MATRIX || per == QMM_PER_ROW || per == QMM_PER_COL)
        return 1;
    qmm_log("invalid argument: per must be QMM_PER_MATRIX, QMM_PER_ROW or QMM_PER_COL");
    return 0;
}

int qmm_quant_type_ok(qmm_type type)
{
    if (type == QMM_TYPE_I8 || type == QMM_TYPE_U8)
        return 1;
    qmm_log("invalid argument: the integer type must be QMM_TYPE_I8 or QMM_TYPE_U8");
    return 0;
}

qmm_status qmm_quant_check_arrays(const qmm_array_arg *arr, size_t count)
{
    qmm_span spans[QMM_ARRAY_ARGS_MAX];
    for (size_t i = 0; i < count; i++) {
        qmm_status st = qmm_check_matrix(arr[i].name, arr[i].p, arr[i].rows, arr[i].cols,
                                         arr[i].ld, arr[i].elem, &spans[i]);
        if (st != QMM_OK)
            return st;
    }
    for (size_t i = 0; i < count; i++)
        for (size_t o = 0; o < count; o++)
            if (o != i && arr[o].is_output && qmm_spans_overlap(spans[i], spans[o])) {
                qmm_log("invalid argument: %s overlaps %s", arr[o].name, arr[i].name);
                return QMM_ERR_INVALID_ARG;
            }
    return QMM_OK;
}

qmm_status qmm_quant_check_params(int is_f64, const void *scales, const int32_t *zp,
                                  size_t lines, qmm_type type, int zero_scale_ok)
{
    const int32_t lo = type == QMM_TYPE_U8 ? 0 : -128, hi = type == QMM_TYPE_U8 ? 255 : 127;
    for (size_t i = 0; i < lines; i++) {
        const double s = is_f64 ? ((const double *)scales)[i] : ((const float *)scales)[i];
        if (!isfinite(s) || !(s > 0 || (zero_scale_ok && s == 0))) {
            qmm_log("invalid argument: scales[%zu] is %g, need a finite value %s 0", i, s,
                    zero_scale_ok ? ">=" : ">");
            return QMM_ERR_INVALID_ARG;
        }
        if (zp != NULL && (zp[i] < lo || zp[i] > hi)) {
            qmm_log("invalid argument: zero_points[%zu] = %d is outside [%d, %d]", i, (int)zp[i],
                    (int)lo, (int)hi);
            return QMM_ERR_INVALID_ARG;
        }
    }
    return QMM_OK;
}

/* The public calls: the arrays (the parameters written, or read when
 * given), given parameters in their ranges, then the run, which rejects a
 * non-finite X. */
static qmm_status quantize(const qmm_quant_job *j)
{
    if (j->rows == 0 || j->cols == 0)
        return QMM_OK;
    if (!qmm_quant_per_ok(j->per) || !qmm_quant_type_ok(j->type))
        return QMM_ERR_INVALID_ARG;
    const int given = j->given;
    const size_t elem = j->is_f64 ? sizeof(double) : sizeof(float);
    const size_t lines = qmm_quant_lines(j->per, j->rows, j->cols);
    const int32_t *zp = given ? j->given_zero_points : j->zero_points;
    const qmm_array_arg arr[] = {
        {"X", j->x, j->rows, j->cols, j->ldx, elem, 0},
        {"Q", j->q, j->rows, j->cols, j->ldq, 1, 1},
        {"scales", given ? j->given_scales : j->scales, 1, lines, lines, elem, !given},
        {"zero_points", zp, 1, lines, lines, sizeof(int32_t), !given},
    };
    qmm_status st = qmm_quant_check_arrays(arr, (given ? zp != NULL : j->asymmetric) ? 4 : 3);
    if (st == QMM_OK && given)
        st = qmm_quant_check_params(j->is_f64, j->given_scales, zp, lines, j->type, 0);
    return st == QMM_OK ? qmm_quantize_run(j) : st;
}

qmm_status qmm_quantize_symmetric_f32(size_t rows, size_t cols, const float *x, size_t ldx,
                                      qmm_per per, int8_t *q, size_t ldq, float *scales)
{
    qmm_quant_job j = {.x = x, .ldx = ldx, .rows = rows, .cols = cols, .per = per,
                       .q = (unsigned char *)q, .ldq = ldq, .scales = scales};
    return quantize(&j);
}

qmm_status qmm_quantize_symmetric_f64(size_t rows, size_t cols, const double *x, size_t ldx,
                                      qmm_per per, int8_t *q, size_t ldq, double *scales)
{
    qmm_quant_job j = {.is_f64 = 1, .x = x, .ldx = ldx, .rows = rows, .cols = cols,
                       .per = per, .q = (unsigned char *)q, .ldq = ldq, .scales = scales};
    return quantize(&j);
}

qmm_status qmm_quantize_asymmetric_f32(size_t rows, size_t cols, const float *x, size_t ldx,
                                       qmm_per per, qmm_type type, void *q, size_t ldq,
                                       float *scales, int32_t *zero_points)
{
    qmm_quant_job j = {.x = x, .ldx = ldx, .rows = rows, .cols = cols, .per = per,
                       .asymmetric = 1, .type = type, .q = q, .ldq = ldq, .scales = scales,
                       .zero_points = zero_points};
    return quantize(&j);
}

qmm_status qmm_quantize_asymmetric_f64(size_t rows, size_t cols, const double *x, size_t ldx,
                                       qmm_per per, qmm_type type, void *q, size_t ldq,
                                       double *scales, int32_t *zero_points)
{
    qmm_quant_job j = {.is_f64 = 1, .x = x, .ldx = ldx, .rows = rows, .cols = cols,
                       .per = per, .asymmetric = 1, .type = type, .q = q, .ldq = ldq,
                       .scales = scales, .zero_points = zero_points};
    return quantize(&j);
}

qmm_status qmm_quantize_f32(size_t rows, size_t cols, const float *x, size_t ldx, qmm_per per,
                            const float *scales, const int32_t *zero_points, qmm_type type,
                            void *q, size_t ldq)
{
    qmm_quant_job j = {.x = x, .ldx = ldx, .rows = rows, .cols = cols, .per = per,
                       .type = type, .q = q, .ldq = ldq, .given = 1, .given_scales = scales,
                       .given_zero_points = zero_points};
    return quantize(&j);
}

qmm_status qmm_quantize_f64(size_t rows, size_t cols, const double *x, size_t ldx, qmm_per per,
                            const double *scales, const int32_t *zero_points, qmm_type type,
                            void *q, size_t ldq)
{
    qmm_quant_job j = {.is_f64 = 1, .x = x, .ldx = ldx, .rows = rows, .cols = cols,
                       .per = per, .type = type, .q = q, .ldq = ldq, .given = 1,
                       .given_scales = scales, .given_zero_points = zero_points};
    return quantize(&j);
}
