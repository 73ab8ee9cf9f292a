#include "describe.h"

#include <math.h>

#include "../platform/log.h"

static qmm_status invalid(const char *what, const char *why)
{
    qmm_log("invalid argument: %s %s", what, why);
    return QMM_ERR_INVALID_ARG;
}

/* Values a parameter of this kind has for an m x n C; NOT_ALLOWED for a
 * kind it may not be (allowed: a bit per qmm_per). */
#define NOT_ALLOWED SIZE_MAX
static size_t count_of(qmm_per per, size_t m, size_t n, unsigned allowed)
{
    if ((unsigned)per > QMM_PER_ROW_COL || !(allowed & 1u << per))
        return NOT_ALLOWED;
    switch (per) {
    case QMM_PER_NONE:
    case QMM_PER_MATRIX:
        return 1;
    case QMM_PER_ROW:
        return m;
    case QMM_PER_COL:
        return n;
    case QMM_PER_ROW_COL:
        return m;  /* and n of col_values, checked by the caller */
    }
    return 0;
}

#define ALLOW(p) (1u << (p))
static const unsigned BIAS_KINDS = ALLOW(QMM_PER_NONE) | ALLOW(QMM_PER_MATRIX) |
                                   ALLOW(QMM_PER_ROW) | ALLOW(QMM_PER_COL);

static qmm_status check_i32(const qmm_i32_param *p, const char *what, size_t m, size_t n,
                            unsigned allowed, int32_t lo, int32_t hi)
{
    if (count_of(p->per, m, n, allowed) == NOT_ALLOWED)
        return invalid(what, "has a kind (qmm_per) it cannot have");
    if (p->per == QMM_PER_NONE)
        return QMM_OK;
    if (p->per == QMM_PER_MATRIX)
        return p->value < lo || p->value > hi ? invalid(what, "is out of its range") : QMM_OK;
    if (p->values == NULL)
        return invalid(what, "is per row or column but its values are NULL");
    for (size_t i = 0, c = count_of(p->per, m, n, allowed); i < c; i++)
        if (p->values[i] < lo || p->values[i] > hi)
            return invalid(what, "has a value out of its range");
    return QMM_OK;
}

static int floats_ok(const float *v, size_t count, int positive)
{
    for (size_t i = 0; i < count; i++)
        if (!isfinite(v[i]) || (positive && !(v[i] > 0)))
            return 0;
    return 1;
}

static qmm_status check_f32(const qmm_f32_param *p, const char *what, size_t m, size_t n,
                            unsigned allowed, int positive)
{
    const size_t count = count_of(p->per, m, n, allowed);
    if (count == NOT_ALLOWED)
        return invalid(what, "has a kind (qmm_per) it cannot have");
    if (p->per == QMM_PER_NONE)
        return QMM_OK;
    if (p->per == QMM_PER_MATRIX)
        return floats_ok(&p->value, 1, positive) ? QMM_OK
                                                 : invalid(what, "is NaN, infinite or out of range");
    if (p->values == NULL || (p->per == QMM_PER_ROW_COL && p->col_values == NULL))
        return invalid(what, "is per row or column but its values are NULL");
    if (!floats_ok(p->values, count, positive) ||
        (p->per == QMM_PER_ROW_COL && !floats_ok(p->col_values, n, positive)))
        return invalid(what, "has a value NaN, infinite or out of range");
    return QMM_OK;
}

static qmm_status check_dequant(const qmm_dequant *d, size_t m, size_t n)
{
    qmm_status st = check_f32(&d->scale, "the float scale", m, n,
                              BIAS_KINDS | ALLOW(QMM_PER_ROW_COL), 0);
    if (st == QMM_OK)
        st = check_f32(&d->bias, "the float bias", m, n, BIAS_KINDS, 0);
    if (st == QMM_OK && d->clamp && !(d->min <= d->max))
        return invalid("the float clamp", "needs min <= max, neither NaN");
    return st;
}

static qmm_status check_requant(const qmm_requant *r, qmm_type type, size_t m, size_t n)
{
    const int32_t lo = type == QMM_TYPE_U8 ? 0 : INT8_MIN, hi = type == QMM_TYPE_U8 ? 255 : INT8_MAX;
    const unsigned kinds = ALLOW(QMM_PER_MATRIX) | ALLOW(QMM_PER_ROW) | ALLOW(QMM_PER_COL);
    qmm_status st = QMM_OK;
    if (count_of(r->per, m, n, kinds) == NOT_ALLOWED)
        return invalid("the requantization", "must be per matrix, per row or per column");
    switch (r->rounding) {
    case QMM_ROUND_TFLITE:
    case QMM_ROUND_SINGLE: {
        const qmm_i32_param mult = {r->per, r->multiplier, r->multipliers},
                            shift = {r->per, r->shift, r->shifts};
        st = check_i32(&mult, "the multiplier", m, n, kinds, 0, INT32_MAX);
        if (st == QMM_OK)
            st = check_i32(&shift, "the shift", m, n, kinds, -31, 30);
        break;
    }
    case QMM_ROUND_FLOAT: {
        const qmm_f32_param scale = {.per = r->per, .value = r->scale, .values = r->scales};
        st = check_f32(&scale, "the requantization scale", m, n, kinds, 1);
        break;
    }
    default:
        return invalid("the requantization", "names no rounding rule (requant.rounding)");
    }
    if (st != QMM_OK)
        return st;
    if (r->zero_point < lo || r->zero_point > hi)
        return invalid("the output zero point", "is out of the output type's range");
    if (r->clamp && (r->min > r->max || r->min < lo || r->max > hi))
        return invalid("the integer clamp", "needs min <= max within the output type's range");
    return QMM_OK;
}

qmm_status qmm_output_check(const qmm_output *o, size_t m, size_t n)
{
    if (qmm_type_bytes(o->type) == 0)
        return invalid("the output type", "is unknown");
    qmm_status st = check_i32(&o->bias, "the int32 bias", m, n, BIAS_KINDS, INT32_MIN, INT32_MAX);
    if (st != QMM_OK)
        return st;
    switch (o->type) {
    case QMM_TYPE_F32:
        return check_dequant(&o->dequant, m, n);
    case QMM_TYPE_I8:
    case QMM_TYPE_U8:
        return check_requant(&o->requant, o->type, m, n);
    default:
        return QMM_OK;
    }
}

qmm_status qmm_operand_check(const qmm_operand *x, const char *name, qmm_per per, size_t count)
{
    if (x->type != QMM_TYPE_I8 && x->type != QMM_TYPE_U8) {
        qmm_log("invalid argument: %s's type must be QMM_TYPE_I8 or QMM_TYPE_U8", name);
        return QMM_ERR_INVALID_ARG;
    }
    const int u8 = x->type == QMM_TYPE_U8;
    const unsigned kinds = ALLOW(QMM_PER_NONE) | ALLOW(QMM_PER_MATRIX) | ALLOW(per);
    /* count_of's m and n: the per-channel kind has count values. */
    qmm_status st = check_i32(&x->zero_point, name[0] == 'A' ? "A's zero point" : "B's zero point",
                              count, count, kinds, u8 ? 0 : INT8_MIN, u8 ? 255 : INT8_MAX);
    return st;
}

qmm_along qmm_along_of(qmm_per per, int transposed)
{
    switch (per) {
    case QMM_PER_ROW:
        return transposed ? QMM_ALONG_COLS : QMM_ALONG_ROWS;
    case QMM_PER_COL:
        return transposed ? QMM_ALONG_ROWS : QMM_ALONG_COLS;
    default:
        return QMM_ALONG_NONE;
    }
}

static qmm_fvec fvec_of(const qmm_f32_param *p, int transposed)
{
    if (p->per == QMM_PER_NONE)
        return (qmm_fvec){NULL, QMM_ALONG_NONE};
    return (qmm_fvec){p->per == QMM_PER_MATRIX ? &p->value : p->values,
                      qmm_along_of(p->per == QMM_PER_ROW_COL ? QMM_PER_ROW : p->per, transposed)};
}

void qmm_epilogue_describe(qmm_epilogue *e, const qmm_output *o, int transposed)
{
    *e = (qmm_epilogue){.tile = qmm_epilogue_pick(), .type = o->type, .c = o->data,
                        .rs = transposed ? o->cs : o->rs, .cs = transposed ? o->rs : o->cs};
    if (o->type == QMM_TYPE_F32) {
        const qmm_dequant *d = &o->dequant;
        e->scale[0] = fvec_of(&d->scale, transposed);
        if (d->scale.per == QMM_PER_ROW_COL)
            e->scale[1] = (qmm_fvec){d->scale.col_values, qmm_along_of(QMM_PER_COL, transposed)};
        e->fbias = fvec_of(&d->bias, transposed);
        e->fclamp = d->clamp;
        e->fmin = d->min;
        e->fmax = d->max;
    }
    if (o->type == QMM_TYPE_I8 || o->type == QMM_TYPE_U8) {
        const qmm_requant *r = &o->requant;
        const int u8 = o->type == QMM_TYPE_U8;
        const qmm_along along = qmm_along_of(r->per, transposed);
        const int single = r->per == QMM_PER_MATRIX;
        e->multiplier = (qmm_ivec){single ? &r->multiplier : r->multipliers, along};
        e->shift = (qmm_ivec){single ? &r->shift : r->shifts, along};
        e->qscale = (qmm_fvec){single ? &r->scale : r->scales, along};
        e->rounding = r->rounding;
        e->zero_point = r->zero_point;
        e->qmin = r->clamp ? r->min : u8 ? 0 : INT8_MIN;
        e->qmax = r->clamp ? r->max : u8 ? 255 : INT8_MAX;
    }
}
