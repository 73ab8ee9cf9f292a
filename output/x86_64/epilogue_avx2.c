/* The output stage compiled for AVX2 (-mavx2, cmake/kernels_x86_64.cmake):
 * eight lanes per vector; the same operations, so the same bits. TFLite's
 * rule has its own block, each column's parameters prepared once for all
 * the block's rows: the compiler's version of its 64-bit products shuffles
 * lanes back and forth. */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "../epilogue.h"

static QMM_EPILOGUE_BLOCK_INLINE void tflite_block_avx2(const qmm_epilogue_block_params *);
static QMM_EPILOGUE_BLOCK_INLINE void float_block_avx2(const qmm_epilogue_block_params *);

#define QMM_EPILOGUE_TILE_FN qmm_epilogue_tile_avx2
#define QMM_EPILOGUE_TFLITE_BLOCK tflite_block_avx2
#define QMM_EPILOGUE_FLOAT_BLOCK float_block_avx2
#include "../epilogue_tile.h"

/* The low bytes of eight int32 lanes, in order, into out. */
static inline void store_low_bytes(uint8_t *out, __m256i q)
{
    /* Bytes 0, 4, 8 and 12 of each half to its first dword, then the two
     * halves' first dwords side by side. */
    const __m256i low_bytes = _mm256_setr_epi8(
        0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
        0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m256i first_dwords = _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0);
    q = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(q, low_bytes), first_dwords);
    _mm_storel_epi64((__m128i *)out, _mm256_castsi256_si128(q));
}

/* Eight columns' parameters, as the rule uses them: the multiplier (its odd
 * lanes' halves moved down for vpmuldq), the shifts left and right, and
 * RoundingDivideByPOT's mask and half of it. */
typedef struct tflite_cols {
    __m256i mul, mul_odd, left, right, mask, half;
} tflite_cols;

static inline tflite_cols tflite_cols_at(const int32_t *m, const int32_t *sh)
{
    const __m256i zero = _mm256_setzero_si256(), ones = _mm256_set1_epi32(-1);
    tflite_cols c;
    c.mul = _mm256_loadu_si256((const __m256i *)m);
    c.mul_odd = _mm256_srli_epi64(c.mul, 32);
    const __m256i s = _mm256_loadu_si256((const __m256i *)sh);
    c.left = _mm256_max_epi32(s, zero);
    c.right = _mm256_sub_epi32(c.left, s);
    /* 2^right - 1 as the complement of all ones shifted left by right: an
     * all-ones register costs no load, nor a register across the rows. */
    c.mask = _mm256_andnot_si256(_mm256_sllv_epi32(ones, c.right), ones);
    c.half = _mm256_srli_epi32(c.mask, 1);
    return c;
}

/* The rule on eight sums x, clamped to [lo, hi], plus zp: the doubling high
 * multiply as floor((x m + 2^30) / 2^31) (the template's), from the even
 * lanes' products and the odd ones' (vpmuldq takes the low half of each
 * 64-bit lane), their quotients' low halves put back in place by one blend;
 * then RoundingDivideByPOT with the per-lane shift. */
static inline __m256i tflite_rule(__m256i x, const tflite_cols *c, __m256i vlo, __m256i vhi,
                                  __m256i vzp)
{
    const __m256i zero = _mm256_setzero_si256();
    const __m256i nudge = _mm256_set1_epi64x((int64_t)1 << 30);
    x = _mm256_sllv_epi32(x, c->left);
    const __m256i even = _mm256_add_epi64(_mm256_mul_epi32(x, c->mul), nudge);
    const __m256i odd =
        _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), c->mul_odd), nudge);
    const __m256i h =
        _mm256_blend_epi32(_mm256_srli_epi64(even, 31), _mm256_slli_epi64(odd, 1), 0xaa);
    const __m256i threshold = _mm256_sub_epi32(c->half, _mm256_cmpgt_epi32(zero, h));
    __m256i q = _mm256_srav_epi32(h, c->right);
    q = _mm256_sub_epi32(q, _mm256_cmpgt_epi32(_mm256_and_si256(h, c->mask), threshold));
    return _mm256_add_epi32(_mm256_min_epi32(_mm256_max_epi32(q, vlo), vhi), vzp);
}

/* Row ii's sums of the eight columns from jj, with those columns' int32
 * additions (add) and the row's. */
static inline __m256i row_sums(const qmm_epilogue_block_params *p, size_t ii, size_t jj,
                               __m256i add)
{
    const int32_t *sums = p->sums + (ptrdiff_t)ii * p->sums_rs + (ptrdiff_t)jj;
    const __m256i x = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)sums), add);
    return p->rows != NULL ? _mm256_add_epi32(x, _mm256_set1_epi32((int32_t)p->rows[ii])) : x;
}

/* Eight columns at a time, their parameters prepared once, down the rows,
 * each lane's low byte gathered into eight bytes; the last few columns by
 * the template's rule. */
static QMM_EPILOGUE_BLOCK_INLINE void tflite_block_avx2(const qmm_epilogue_block_params *params)
{
    const qmm_epilogue_block_params p = *params; /* a copy C's stores cannot change */
    const __m256i vlo = _mm256_set1_epi32(p.lo), vhi = _mm256_set1_epi32(p.hi),
                  vzp = _mm256_set1_epi32(p.zero_point);
    uint8_t *const out = p.out;
    size_t jj = 0;
    for (; jj + 8 <= p.nv; jj += 8) {
        const tflite_cols c = tflite_cols_at(p.multiplier + jj, p.shift + jj);
        const __m256i add = p.cols != NULL ? _mm256_loadu_si256((const __m256i *)(p.cols + jj))
                                           : _mm256_setzero_si256();
        for (size_t ii = 0; ii < p.mv; ii++) {
            const __m256i x = row_sums(&p, ii, jj, add);
            store_low_bytes(out + (ptrdiff_t)ii * p.out_rs + (ptrdiff_t)jj,
                            tflite_rule(x, &c, vlo, vhi, vzp));
        }
    }
    for (size_t ii = 0; jj < p.nv && ii < p.mv; ii++) {
        const int32_t *in = p.sums + (ptrdiff_t)ii * p.sums_rs;
        const uint32_t r = p.rows != NULL ? p.rows[ii] : 0;
        for (size_t t = jj; t < p.nv; t++) {
            const int32_t v = qmm_epilogue_tile_avx2_rule_tflite(
                (int32_t)((uint32_t)in[t] + (p.cols != NULL ? p.cols[t] : 0) + r),
                p.multiplier[t], p.shift[t]);
            out[(ptrdiff_t)ii * p.out_rs + (ptrdiff_t)t] =
                (uint8_t)((v < p.lo ? p.lo : v > p.hi ? p.hi : v) + p.zero_point);
        }
    }
}

/* ONNX's float rule eight columns at a time, their scales loaded once, down
 * the rows: (float)x * scale clamped to the bounds less the zero point,
 * rounded to nearest even by vcvtps2dq (the template's add and take away of
 * 1.5 * 2^23 rounds the same in every rounding mode, on values so clamped),
 * plus the zero point; the last few columns by the template's row. */
static QMM_EPILOGUE_BLOCK_INLINE void float_block_avx2(const qmm_epilogue_block_params *params)
{
    const qmm_epilogue_block_params p = *params; /* a copy C's stores cannot change */
    const __m256 flo = _mm256_set1_ps((float)p.lo), fhi = _mm256_set1_ps((float)p.hi);
    const __m256i vzp = _mm256_set1_epi32(p.zero_point);
    uint8_t *const out = p.out;
    size_t jj = 0;
    for (; jj + 8 <= p.nv; jj += 8) {
        const __m256 scale = _mm256_loadu_ps(p.qscale + jj);
        const __m256i add = p.cols != NULL ? _mm256_loadu_si256((const __m256i *)(p.cols + jj))
                                           : _mm256_setzero_si256();
        for (size_t ii = 0; ii < p.mv; ii++) {
            const __m256i x = row_sums(&p, ii, jj, add);
            const __m256 v = _mm256_min_ps(
                _mm256_max_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(x), scale), flo), fhi);
            store_low_bytes(out + (ptrdiff_t)ii * p.out_rs + (ptrdiff_t)jj,
                            _mm256_add_epi32(_mm256_cvtps_epi32(v), vzp));
        }
    }
    for (size_t ii = 0; jj < p.nv && ii < p.mv; ii++)
        qmm_epilogue_tile_avx2_requantize_row(
            p.sums + (ptrdiff_t)ii * p.sums_rs + (ptrdiff_t)jj,
            p.cols != NULL ? p.cols + jj : NULL, p.rows != NULL ? p.rows[ii] : 0,
            out + (ptrdiff_t)ii * p.out_rs + (ptrdiff_t)jj, p.nv - jj, NULL, NULL, p.qscale + jj,
            p.lo, p.hi, p.zero_point, QMM_ROUND_FLOAT, p.cols != NULL);
}
