/*
 * The stage on one block of C, as a template: output/epilogue.c instantiates
 * it for the baseline ISA, output/<isa>/epilogue_<isa>.c for wider vectors
 * (the same code: the compiler vectorizes it for the flags of the file).
 * Define QMM_EPILOGUE_TILE_FN, the function's name, before including it, and
 * any of these where an instance has its own code for a stage, each a
 * QMM_EPILOGUE_BLOCK_INLINE function of one const qmm_epilogue_block_params *
 * (output/epilogue.h) that stores the block's elements of C:
 *   QMM_EPILOGUE_TFLITE_BLOCK      TFLite's rule: blocks whose parameters are
 *                                  the same on every row, so that each
 *                                  column's are prepared once, and the single
 *                                  rows (mv 1) of the blocks done a row at a
 *                                  time
 *   QMM_EPILOGUE_FLOAT_BLOCK       ONNX's float rule, on blocks whose scales
 *                                  are the same on every row
 *   QMM_EPILOGUE_DEQUANTIZE_BLOCK  the float stage, on blocks whose
 *                                  parameters are the same on every row
 *   QMM_EPILOGUE_RESIDUE_BLOCK     the residue stage
 * Every file that includes it is built with -ffp-contract=off: each float
 * operation below is the one the header of qmm.h defines, rounded once, so
 * every instance gives the same bits.
 *
 * A block is done a row at a time, each row in one pass that the compiler
 * turns into whole vectors: the int32 sums read, the row's and the column's
 * additions added, converted, and C's elements stored, in registers. Every
 * parameter becomes an array of the row's values (a column parameter read in
 * place, a row parameter or a single value repeated), an absent one an array
 * of its identity (scale 1, float bias -0, which leaves every value as it
 * is, -0 included; no clamp: the infinities). The rare blocks that the pass
 * cannot read in place (products of a row value by a column value, sums
 * whose columns are apart) are first completed into a local tile.
 */
#include <string.h>

#include "epilogue.h"

#define TILE_FN_(prefix, name) prefix##_##name
#define TILE_FN(prefix, name) TILE_FN_(prefix, name)
#define LOCAL(name) TILE_FN(QMM_EPILOGUE_TILE_FN, name)

enum { LOCAL(ROW) = QMM_EPILOGUE_MAX_BLOCK };

/* A parameter's values over the columns of a block, row by row: in place
 * along the columns; else an array of the row's value (or the one value, or
 * `absent`), filled once per block, and again per row when the value runs
 * along the rows. */
typedef struct LOCAL(fparam) {
    const float *at;
    float buf[LOCAL(ROW)];
} LOCAL(fparam);

typedef struct LOCAL(iparam) {
    const int32_t *at;
    int32_t buf[LOCAL(ROW)];
} LOCAL(iparam);

static void LOCAL(fparam_row)(LOCAL(fparam) *p, const qmm_fvec *v, size_t i, size_t j, size_t nv,
                              float absent, int first)
{
    if (v->v != NULL && v->along == QMM_ALONG_COLS) {
        p->at = v->v + j;
        return;
    }
    if (!first && (v->v == NULL || v->along != QMM_ALONG_ROWS))
        return;
    const float x = v->v == NULL ? absent : v->v[v->along == QMM_ALONG_ROWS ? i : 0];
    for (size_t jj = 0; jj < nv; jj++)
        p->buf[jj] = x;
    p->at = p->buf;
}

static void LOCAL(iparam_row)(LOCAL(iparam) *p, const qmm_ivec *v, size_t i, size_t j, size_t nv,
                              int first)
{
    if (v->along == QMM_ALONG_COLS) {
        p->at = v->v + j;
        return;
    }
    if (!first && v->along != QMM_ALONG_ROWS)
        return;
    const int32_t x = v->v[v->along == QMM_ALONG_ROWS ? i : 0];
    for (size_t jj = 0; jj < nv; jj++)
        p->buf[jj] = x;
    p->at = p->buf;
}

/* gemmlowp's SaturatingRoundingDoublingHighMul for b >= 0 (the multiplier,
 * checked: its saturation, a == b == INT32_MIN, cannot happen): 2ab / 2^32
 * rounded half toward +infinity, which is floor((ab + 2^30) / 2^31) for
 * either sign of ab (gemmlowp's nudge of 1 - 2^30 for a negative ab, then
 * division toward zero, gives the same). Only the low 32 bits of the
 * quotient are kept, so a logical shift gives them. */
static inline int32_t LOCAL(doubling_high_mul)(int32_t a, int32_t b)
{
    const int64_t v = (int64_t)a * b + ((int64_t)1 << 30);
    return (int32_t)(uint32_t)((uint64_t)v >> 31);
}

/* gemmlowp's RoundingDivideByPOT: x / 2^e, rounded half away from zero. */
static inline int32_t LOCAL(divide_by_pot)(int32_t x, int32_t e)
{
    const int32_t mask = (int32_t)(((uint32_t)1 << e) - 1u);
    const int32_t threshold = (mask >> 1) + (x < 0);
    return (x >> e) + ((x & mask) > threshold);
}

static inline int32_t LOCAL(rule_tflite)(int32_t x, int32_t m, int32_t s)
{
    const int32_t left = s > 0 ? s : 0, right = s > 0 ? 0 : -s;
    return LOCAL(divide_by_pot)(LOCAL(doubling_high_mul)((int32_t)((uint32_t)x << left), m),
                                right);
}

/* (x*m + 2^(30-s)) >> (31-s), clamped to [lo, hi] (it may pass int32's range). */
static inline int32_t LOCAL(rule_single)(int32_t x, int32_t m, int32_t s, int32_t lo, int32_t hi)
{
    const int total = 31 - s;
    const int64_t v = ((int64_t)x * m + ((int64_t)1 << (total - 1))) >> total;
    return (int32_t)(v < lo ? lo : v > hi ? hi : v);
}

/* The block's sums with the int32 additions and terms, into t (rows t_rs
 * apart, columns adjacent; t may be acc itself). */
static void LOCAL(finish_sums)(const qmm_epilogue *e, size_t i, size_t j, size_t mv, size_t nv,
                               const int32_t *acc, ptrdiff_t acc_rs, ptrdiff_t acc_cs,
                               int32_t *t, ptrdiff_t t_rs)
{
    const uint32_t *restrict cols = (const uint32_t *)e->col_add;
    for (size_t ii = 0; ii < mv; ii++) {
        const int32_t *in = acc + (ptrdiff_t)ii * acc_rs;
        uint32_t *row = (uint32_t *)(t + (ptrdiff_t)ii * t_rs);
        const uint32_t r = e->row_add != NULL ? (uint32_t)e->row_add[i + ii] : 0;
        for (size_t jj = 0; jj < nv; jj++)
            row[jj] = (uint32_t)in[(ptrdiff_t)jj * acc_cs] + (cols != NULL ? cols[j + jj] : 0) + r;
    }
    LOCAL(iparam) x, y;
    for (unsigned k = 0; k < e->terms; k++)
        for (size_t ii = 0; ii < mv; ii++) {
            uint32_t *row = (uint32_t *)(t + (ptrdiff_t)ii * t_rs);
            LOCAL(iparam_row)(&x, &e->term[k][0], i + ii, j, nv, ii == 0);
            LOCAL(iparam_row)(&y, &e->term[k][1], i + ii, j, nv, ii == 0);
            const int32_t *restrict xa = x.at, *restrict ya = y.at;
            for (size_t jj = 0; jj < nv; jj++)
                row[jj] += (uint32_t)xa[jj] * (uint32_t)ya[jj];
        }
}

/* Whether a parameter's values change from row to row. */
static inline int LOCAL(by_row_f)(const qmm_fvec *v)
{
    return v->v != NULL && v->along == QMM_ALONG_ROWS;
}

static inline int LOCAL(by_row_i)(const qmm_ivec *v)
{
    return v->along == QMM_ALONG_ROWS;
}

#define ALWAYS_INLINE inline __attribute__((always_inline))

/* The sums of a block as the fused passes read them: rows s_rs apart,
 * columns adjacent, with col_add's values for the block's columns (NULL:
 * none) and row_add's for its rows (NULL: none) still to be added. */
typedef struct LOCAL(sums) {
    const int32_t *s;
    ptrdiff_t s_rs;
    const uint32_t *cols, *rows;
} LOCAL(sums);

/* Element jj of a row of sums, its additions added (wrapping); `cols` is a
 * constant in each copy of a loop, so that none tests it per element. */
static ALWAYS_INLINE int32_t LOCAL(sum_at)(const int32_t *in,
                                           const uint32_t *restrict cols, uint32_t r, size_t jj,
                                           const int has_cols)
{
    return (int32_t)((uint32_t)in[jj] + (has_cols ? cols[jj] : 0) + r);
}

/* An int32 C's row: the sums with their additions. `in` may be `out` itself
 * (qmm_epilogue_fn lets acc be C's block). Any width: one loop, which the
 * compiler turns into vectors behind a test that the two do not overlap. A
 * width known at compile time (the 8-column tiles, below): the loop is
 * unrolled whole, and its vectors then need stores known apart from the
 * loads, so the row is made in a local array and copied (one or two vector
 * copies), where one loop stays scalar. */
static ALWAYS_INLINE void LOCAL(add_row)(const int32_t *in, const uint32_t *restrict cols,
                                         uint32_t r, int32_t *out, size_t nv,
                                         const int has_cols)
{
    if (!__builtin_constant_p(nv)) {
        for (size_t jj = 0; jj < nv; jj++)
            out[jj] = LOCAL(sum_at)(in, cols, r, jj, has_cols);
        return;
    }
    int32_t row[LOCAL(ROW)];
    for (size_t jj = 0; jj < nv; jj++)
        row[jj] = LOCAL(sum_at)(in, cols, r, jj, has_cols);
    memcpy(out, row, nv * sizeof *row);
}

/* One row of the float stage: sums, then y = clamp(((float)s * s0) * s1 +
 * fb); `twice` (a second scale) and `clamp` are constants in each copy, so
 * that the common row does no more than it needs: add, convert, multiply,
 * add. */
static ALWAYS_INLINE void LOCAL(dequantize_row)(const int32_t *restrict in,
                                                const uint32_t *restrict cols, uint32_t r,
                                                float *restrict out, size_t nv,
                                                const float *restrict s0,
                                                const float *restrict s1,
                                                const float *restrict fb, float lo, float hi,
                                                const int has_cols, const int twice,
                                                const int clamp)
{
    for (size_t jj = 0; jj < nv; jj++) {
        float v = (float)LOCAL(sum_at)(in, cols, r, jj, has_cols);
        v = v * s0[jj];
        if (twice)
            v = v * s1[jj];
        v = v + fb[jj];
        out[jj] = clamp ? (v < lo ? lo : v > hi ? hi : v) : v;
    }
}

/* One row of residues. x = hi 2^16 + lo (lo in [0, 2^16)) is congruent to
 * y = hi (2^16 mod p) + lo, below 2^23 in magnitude: exact in float, whose
 * quotient by p errs by far less than 1/2. y - q p for that quotient rounded
 * is within p of the symmetric residue, then moved by p into
 * [-(p - 1) / 2, (p - 1) / 2]. Every step in 32-bit lanes. */
static ALWAYS_INLINE void LOCAL(residue_row)(const int32_t *restrict in, uint8_t *restrict out,
                                             size_t nv, int32_t p)
{
    const int32_t c16 = 65536 % p, half = (p - 1) / 2;
    const float inv = 1.0f / (float)p;
    for (size_t jj = 0; jj < nv; jj++) {
        const int32_t lo = in[jj] & 0xffff, hi = (in[jj] - lo) / 65536;
        const int32_t y = hi * c16 + lo;
        const float v = (float)y * inv;
        const int32_t q = (int32_t)(v + (v < 0 ? -0.5f : 0.5f));
        int32_t r = y - q * p;
        r -= r > half ? p : 0;
        r += r < -half ? p : 0;
        out[jj] = (uint8_t)r;
    }
}

/* One row of an int8 or uint8 C: sums, then clamp(rule(s), lo, hi) + zp,
 * stored as its low byte (int8 and uint8 alike: the value is in the type's
 * range). `rounding` and `has_cols` are constants in each copy. */
static ALWAYS_INLINE void LOCAL(requantize_row)(const int32_t *restrict in,
                                                const uint32_t *restrict cols, uint32_t r,
                                                uint8_t *restrict out, size_t nv,
                                                const int32_t *restrict m,
                                                const int32_t *restrict sh,
                                                const float *restrict sc, int32_t lo, int32_t hi,
                                                int32_t zp, const qmm_rounding rounding,
                                                const int has_cols)
{
    if (rounding == QMM_ROUND_FLOAT) {
        /* Clamped in float to the bounds less the zero point (whole numbers,
         * so clamping commutes with rounding), then rounded to nearest even
         * by adding and taking away 1.5 * 2^23 (exact for |v| < 2^22). */
        const float flo = (float)lo, fhi = (float)hi, magic = 12582912.0f;
        for (size_t jj = 0; jj < nv; jj++) {
            float v = (float)LOCAL(sum_at)(in, cols, r, jj, has_cols) * sc[jj];
            v = v < flo ? flo : v > fhi ? fhi : v;
            v = (v + magic) - magic;
            out[jj] = (uint8_t)((int32_t)v + zp);
        }
    } else if (rounding == QMM_ROUND_SINGLE) {
        for (size_t jj = 0; jj < nv; jj++)
            out[jj] = (uint8_t)(LOCAL(rule_single)(LOCAL(sum_at)(in, cols, r, jj, has_cols), m[jj],
                                                   sh[jj], lo, hi) +
                                zp);
    } else {
#if defined(QMM_EPILOGUE_TFLITE_BLOCK)
        QMM_EPILOGUE_TFLITE_BLOCK(&(const qmm_epilogue_block_params){
            .sums = in, .rows = &r, .cols = has_cols ? cols : NULL, .out = out, .mv = 1,
            .nv = nv, .multiplier = m, .shift = sh, .lo = lo, .hi = hi, .zero_point = zp});
#else
        for (size_t jj = 0; jj < nv; jj++) {
            const int32_t v =
                LOCAL(rule_tflite)(LOCAL(sum_at)(in, cols, r, jj, has_cols), m[jj], sh[jj]);
            out[jj] = (uint8_t)((v < lo ? lo : v > hi ? hi : v) + zp);
        }
#endif
    }
}

/* Where a row of the block goes: C's row itself when its elements are
 * adjacent, else `buf`, scattered into C by put_row. */
static inline void *LOCAL(row_out)(const qmm_epilogue *e, size_t i, size_t j, size_t ii, void *buf)
{
    if (e->cs != 1)
        return buf;
    return (char *)e->c + ((ptrdiff_t)(i + ii) * e->rs + (ptrdiff_t)j) *
                              (ptrdiff_t)qmm_type_bytes(e->type);
}

static void LOCAL(put_row)(const qmm_epilogue *e, size_t i, size_t j, size_t ii, size_t nv,
                           const void *buf)
{
    if (e->cs == 1)
        return;
    const size_t bytes = qmm_type_bytes(e->type);
    char *c = (char *)e->c + ((ptrdiff_t)(i + ii) * e->rs + (ptrdiff_t)j * e->cs) * (ptrdiff_t)bytes;
    for (size_t jj = 0; jj < nv; jj++)
        memcpy(c + (ptrdiff_t)jj * e->cs * (ptrdiff_t)bytes, (const char *)buf + jj * bytes, bytes);
}

static ALWAYS_INLINE void LOCAL(add_rows)(const qmm_epilogue *e, size_t i, size_t j, size_t mv,
                                          size_t nv, const LOCAL(sums) *s, int32_t *buf,
                                          const int has_cols)
{
    /* C's place and strides read once: the rows' stores could alias *e. */
    const ptrdiff_t rs = e->rs, cs = e->cs;
    int32_t *const c = (int32_t *)e->c + ((ptrdiff_t)i * rs + (ptrdiff_t)j * cs);
    if (cs == 1) {
        for (size_t ii = 0; ii < mv; ii++)
            LOCAL(add_row)(s->s + (ptrdiff_t)ii * s->s_rs, s->cols,
                           s->rows != NULL ? s->rows[ii] : 0, c + (ptrdiff_t)ii * rs, nv,
                           has_cols);
        return;
    }
    for (size_t ii = 0; ii < mv; ii++) {
        LOCAL(add_row)(s->s + (ptrdiff_t)ii * s->s_rs, s->cols, s->rows != NULL ? s->rows[ii] : 0,
                       buf, nv, has_cols);
        int32_t *row = c + (ptrdiff_t)ii * rs;
        for (size_t jj = 0; jj < nv; jj++)
            row[(ptrdiff_t)jj * cs] = buf[jj];
    }
}

/* The float stage on the block's rows. */
static ALWAYS_INLINE void LOCAL(dequantize)(const qmm_epilogue *e, size_t i, size_t j, size_t mv,
                                            size_t nv, const LOCAL(sums) *s, float *buf,
                                            const int has_cols)
{
    LOCAL(fparam) p0, p1, pb;
    LOCAL(fparam_row)(&p0, &e->scale[0], i, j, nv, 1.0f, 1);
    LOCAL(fparam_row)(&p1, &e->scale[1], i, j, nv, 1.0f, 1);
    LOCAL(fparam_row)(&pb, &e->fbias, i, j, nv, -0.0f, 1);
    const int rows = LOCAL(by_row_f)(&e->scale[0]) || LOCAL(by_row_f)(&e->scale[1]) ||
                     LOCAL(by_row_f)(&e->fbias);
    const int twice = e->scale[1].v != NULL, clamp = e->fclamp;
    const float lo = e->fmin, hi = e->fmax;
#if defined(QMM_EPILOGUE_DEQUANTIZE_BLOCK)
    if (!rows && e->cs == 1) {
        QMM_EPILOGUE_DEQUANTIZE_BLOCK(&(const qmm_epilogue_block_params){
            .sums = s->s, .sums_rs = s->s_rs, .rows = s->rows, .cols = has_cols ? s->cols : NULL,
            .out = (float *)e->c + (ptrdiff_t)i * e->rs + (ptrdiff_t)j, .out_rs = e->rs,
            .mv = mv, .nv = nv, .scale = {p0.at, twice ? p1.at : NULL}, .fbias = pb.at,
            .fclamp = clamp, .fmin = lo, .fmax = hi});
        return;
    }
#endif
    for (size_t ii = 0; ii < mv; ii++) {
        if (rows && ii > 0) {
            LOCAL(fparam_row)(&p0, &e->scale[0], i + ii, j, nv, 1.0f, 0);
            LOCAL(fparam_row)(&p1, &e->scale[1], i + ii, j, nv, 1.0f, 0);
            LOCAL(fparam_row)(&pb, &e->fbias, i + ii, j, nv, -0.0f, 0);
        }
        const int32_t *in = s->s + (ptrdiff_t)ii * s->s_rs;
        const uint32_t r = s->rows != NULL ? s->rows[ii] : 0;
        float *out = LOCAL(row_out)(e, i, j, ii, buf);
        if (twice && clamp)
            LOCAL(dequantize_row)(in, s->cols, r, out, nv, p0.at, p1.at, pb.at, lo, hi, has_cols,
                                  1, 1);
        else if (twice)
            LOCAL(dequantize_row)(in, s->cols, r, out, nv, p0.at, p1.at, pb.at, lo, hi, has_cols,
                                  1, 0);
        else if (clamp)
            LOCAL(dequantize_row)(in, s->cols, r, out, nv, p0.at, p1.at, pb.at, lo, hi, has_cols,
                                  0, 1);
        else
            LOCAL(dequantize_row)(in, s->cols, r, out, nv, p0.at, p1.at, pb.at, lo, hi, has_cols,
                                  0, 0);
        LOCAL(put_row)(e, i, j, ii, nv, out);
    }
}

/* The int8 or uint8 stage on the block's rows, by the rule e names. */
static ALWAYS_INLINE void LOCAL(requantize)(const qmm_epilogue *e, size_t i, size_t j, size_t mv,
                                            size_t nv, const LOCAL(sums) *s, uint8_t *buf,
                                            const int has_cols)
{
    if (e->modulus != 0) {
#if defined(QMM_EPILOGUE_RESIDUE_BLOCK)
        if (e->cs == 1) {
            QMM_EPILOGUE_RESIDUE_BLOCK(&(const qmm_epilogue_block_params){
                .sums = s->s, .sums_rs = s->s_rs,
                .out = (uint8_t *)e->c + (ptrdiff_t)i * e->rs + (ptrdiff_t)j, .out_rs = e->rs,
                .mv = mv, .nv = nv, .modulus = e->modulus});
            return;
        }
#endif
        for (size_t ii = 0; ii < mv; ii++) {
            uint8_t *out = LOCAL(row_out)(e, i, j, ii, buf);
            LOCAL(residue_row)(s->s + (ptrdiff_t)ii * s->s_rs, out, nv, e->modulus);
            LOCAL(put_row)(e, i, j, ii, nv, out);
        }
        return;
    }
    const int32_t zp = e->zero_point, lo = e->qmin - zp, hi = e->qmax - zp;
    const qmm_rounding rule = e->rounding;
    LOCAL(fparam) pc;
    LOCAL(iparam) pm, ps;
    int rows;
    if (rule == QMM_ROUND_FLOAT) {
        LOCAL(fparam_row)(&pc, &e->qscale, i, j, nv, 1.0f, 1);
        rows = LOCAL(by_row_f)(&e->qscale);
    } else {
        LOCAL(iparam_row)(&pm, &e->multiplier, i, j, nv, 1);
        LOCAL(iparam_row)(&ps, &e->shift, i, j, nv, 1);
        rows = LOCAL(by_row_i)(&e->multiplier);
    }
#if defined(QMM_EPILOGUE_FLOAT_BLOCK)
    if (rule == QMM_ROUND_FLOAT && !rows && e->cs == 1) {
        QMM_EPILOGUE_FLOAT_BLOCK(&(const qmm_epilogue_block_params){
            .sums = s->s, .sums_rs = s->s_rs, .rows = s->rows, .cols = has_cols ? s->cols : NULL,
            .out = (uint8_t *)e->c + (ptrdiff_t)i * e->rs + (ptrdiff_t)j, .out_rs = e->rs,
            .mv = mv, .nv = nv, .qscale = pc.at, .lo = lo, .hi = hi, .zero_point = zp});
        return;
    }
#endif
#if defined(QMM_EPILOGUE_TFLITE_BLOCK)
    if (rule == QMM_ROUND_TFLITE && !rows && e->cs == 1) {
        QMM_EPILOGUE_TFLITE_BLOCK(&(const qmm_epilogue_block_params){
            .sums = s->s, .sums_rs = s->s_rs, .rows = s->rows, .cols = has_cols ? s->cols : NULL,
            .out = (uint8_t *)e->c + (ptrdiff_t)i * e->rs + (ptrdiff_t)j, .out_rs = e->rs,
            .mv = mv, .nv = nv, .multiplier = pm.at, .shift = ps.at, .lo = lo, .hi = hi,
            .zero_point = zp});
        return;
    }
#endif
    for (size_t ii = 0; ii < mv; ii++) {
        if (rows && ii > 0) {
            if (rule == QMM_ROUND_FLOAT) {
                LOCAL(fparam_row)(&pc, &e->qscale, i + ii, j, nv, 1.0f, 0);
            } else {
                LOCAL(iparam_row)(&pm, &e->multiplier, i + ii, j, nv, 0);
                LOCAL(iparam_row)(&ps, &e->shift, i + ii, j, nv, 0);
            }
        }
        const int32_t *in = s->s + (ptrdiff_t)ii * s->s_rs;
        const uint32_t r = s->rows != NULL ? s->rows[ii] : 0;
        uint8_t *out = LOCAL(row_out)(e, i, j, ii, buf);
        if (rule == QMM_ROUND_FLOAT)
            LOCAL(requantize_row)(in, s->cols, r, out, nv, NULL, NULL, pc.at, lo, hi, zp,
                                  QMM_ROUND_FLOAT, has_cols);
        else if (rule == QMM_ROUND_SINGLE)
            LOCAL(requantize_row)(in, s->cols, r, out, nv, pm.at, ps.at, NULL, lo, hi, zp,
                                  QMM_ROUND_SINGLE, has_cols);
        else
            LOCAL(requantize_row)(in, s->cols, r, out, nv, pm.at, ps.at, NULL, lo, hi, zp,
                                  QMM_ROUND_TFLITE, has_cols);
        LOCAL(put_row)(e, i, j, ii, nv, out);
    }
}

/* The stage on the block's rows by C's type; `has_cols` a constant. */
static ALWAYS_INLINE void LOCAL(finish)(const qmm_epilogue *e, size_t i, size_t j, size_t mv,
                                        size_t nv, const LOCAL(sums) *s, const int has_cols)
{
    /* A row for C's elements when they are apart (a whole block when mv is 1). */
    union {
        int32_t q[QMM_EPILOGUE_MAX_BLOCK];
        float f[QMM_EPILOGUE_MAX_BLOCK];
        uint8_t b[QMM_EPILOGUE_MAX_BLOCK];
    } buf;
    switch (e->type) {
    case QMM_TYPE_I32:
        LOCAL(add_rows)(e, i, j, mv, nv, s, buf.q, has_cols);
        return;
    case QMM_TYPE_F32:
        LOCAL(dequantize)(e, i, j, mv, nv, s, buf.f, has_cols);
        return;
    default:
        LOCAL(requantize)(e, i, j, mv, nv, s, buf.b, has_cols);
        return;
    }
}

/* mv * nv <= QMM_EPILOGUE_MAX_BLOCK: a tile, or a run of one row. */
void QMM_EPILOGUE_TILE_FN(const qmm_epilogue *e, size_t i, size_t j, size_t mv, size_t nv,
                          const int32_t *acc, ptrdiff_t acc_rs, ptrdiff_t acc_cs)
{
    LOCAL(sums) s = {acc, acc_rs, NULL, NULL};
    int32_t t[QMM_EPILOGUE_MAX_BLOCK];
    if (acc_cs != 1 || e->terms != 0) {
        LOCAL(finish_sums)(e, i, j, mv, nv, acc, acc_rs, acc_cs, t, (ptrdiff_t)nv);
        s.s = t;
        s.s_rs = (ptrdiff_t)nv;
    } else {
        s.cols = e->col_add != NULL ? (const uint32_t *)e->col_add + j : NULL;
        s.rows = e->row_add != NULL ? (const uint32_t *)e->row_add + i : NULL;
    }
    /* The arm64 kernels' 8-column tiles with a constant width: their rows
     * are two or four vectors, which the loops for any width spend more
     * instructions setting up than computing. */
    if (nv == 8 && s.cols != NULL)
        LOCAL(finish)(e, i, j, mv, 8, &s, 1);
    else if (nv == 8)
        LOCAL(finish)(e, i, j, mv, 8, &s, 0);
    else if (s.cols != NULL)
        LOCAL(finish)(e, i, j, mv, nv, &s, 1);
    else
        LOCAL(finish)(e, i, j, mv, nv, &s, 0);
}

#undef LOCAL
#undef ALWAYS_INLINE
#undef TILE_FN
#undef TILE_FN_
