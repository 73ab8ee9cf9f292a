/* The output stage compiled for AVX-512 F/BW/VL (cmake/kernels_x86_64.cmake),
 * chosen with the VNNI tier (QMM_CPU_AVX512VNNI, which implies them): sixteen
 * lanes per vector; the same operations, so the same bits. TFLite's rule has
 * its own block, as in the AVX2 instance, with its tail under a mask instead
 * of one value at a time, and each column's parameters prepared once for all
 * the block's rows; so has ONNX's float rule, whose rounding to nearest even
 * is vcvtps2dq's (the template's add and take away of 1.5 * 2^23 rounds the
 * same in every rounding mode, on values clamped to the type's range). The
 * residue stage has its own block, in float lanes where every step is exact
 * (residue_block_avx512). */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "../epilogue.h"

static QMM_EPILOGUE_BLOCK_INLINE void tflite_block_avx512(const qmm_epilogue_block_params *);
static QMM_EPILOGUE_BLOCK_INLINE void float_block_avx512(const qmm_epilogue_block_params *);
static QMM_EPILOGUE_BLOCK_INLINE void residue_block_avx512(const qmm_epilogue_block_params *);

#define QMM_EPILOGUE_TILE_FN qmm_epilogue_tile_avx512
#define QMM_EPILOGUE_TFLITE_BLOCK tflite_block_avx512
#define QMM_EPILOGUE_FLOAT_BLOCK float_block_avx512
#define QMM_EPILOGUE_RESIDUE_BLOCK residue_block_avx512
#include "../epilogue_tile.h"

/* Sixteen columns' parameters, as the rule uses them: the multiplier (its
 * odd lanes' halves moved down for vpmuldq), the shifts left and right, and
 * RoundingDivideByPOT's mask and half of it. */
typedef struct tflite_cols {
    __m512i mul, mul_odd, left, right, mask, half;
} tflite_cols;

static inline tflite_cols tflite_cols_at(const int32_t *m, const int32_t *sh, __mmask16 k)
{
    const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi32(1);
    tflite_cols c;
    c.mul = _mm512_maskz_loadu_epi32(k, m);
    c.mul_odd = _mm512_srli_epi64(c.mul, 32);
    const __m512i s = _mm512_maskz_loadu_epi32(k, sh);
    c.left = _mm512_max_epi32(s, zero);
    c.right = _mm512_sub_epi32(c.left, s);
    c.mask = _mm512_sub_epi32(_mm512_sllv_epi32(one, c.right), one);
    c.half = _mm512_srli_epi32(c.mask, 1);
    return c;
}

/* The rule on sixteen sums x, clamped to [lo, hi], plus zp: the AVX2 block's
 * steps, the doubling high multiply as floor((x m + 2^30) / 2^31) from the
 * even lanes' 64-bit products and the odd ones', their quotients' low
 * halves merged under a mask; then RoundingDivideByPOT, its two conditional
 * increments as masked adds (the low bytes are then stored by vpmovdb). */
static inline __m512i tflite_rule(__m512i x, const tflite_cols *c, __m512i vlo, __m512i vhi,
                                  __m512i vzp)
{
    const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi32(1);
    const __m512i nudge = _mm512_set1_epi64((int64_t)1 << 30);
    x = _mm512_sllv_epi32(x, c->left);
    const __m512i even = _mm512_add_epi64(_mm512_mul_epi32(x, c->mul), nudge);
    const __m512i odd =
        _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), c->mul_odd), nudge);
    const __m512i h = _mm512_mask_blend_epi32((__mmask16)0xaaaa, _mm512_srli_epi64(even, 31),
                                              _mm512_slli_epi64(odd, 1));
    const __m512i threshold =
        _mm512_mask_add_epi32(c->half, _mm512_cmplt_epi32_mask(h, zero), c->half, one);
    __m512i q = _mm512_srav_epi32(h, c->right);
    q = _mm512_mask_add_epi32(q, _mm512_cmpgt_epi32_mask(_mm512_and_si512(h, c->mask), threshold),
                              q, one);
    return _mm512_add_epi32(_mm512_min_epi32(_mm512_max_epi32(q, vlo), vhi), vzp);
}

static inline __mmask16 tail_mask(size_t left)
{
    return left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1);
}

/* A block's column additions from column jj, the lanes past the mask zero
 * (zeros when cols is NULL). */
static inline __m512i cols_at(const uint32_t *cols, size_t jj, __mmask16 k)
{
    return cols != NULL ? _mm512_maskz_loadu_epi32(k, cols + jj) : _mm512_setzero_si512();
}

/* Row ii's sums at s with the column additions and its row's, wrapping. */
static inline __m512i row_sums(const int32_t *s, __mmask16 k, __m512i cols, const uint32_t *rows,
                               size_t ii)
{
    const __m512i x = _mm512_add_epi32(_mm512_maskz_loadu_epi32(k, s), cols);
    return rows != NULL ? _mm512_add_epi32(x, _mm512_set1_epi32((int32_t)rows[ii])) : x;
}

/* Sixteen columns at a time, their parameters prepared once, down the rows;
 * the lanes past nv are loaded as zeros and never stored. */
static QMM_EPILOGUE_BLOCK_INLINE void tflite_block_avx512(const qmm_epilogue_block_params *params)
{
    const qmm_epilogue_block_params p = *params; /* a copy C's stores cannot change */
    const __m512i vlo = _mm512_set1_epi32(p.lo), vhi = _mm512_set1_epi32(p.hi),
                  vzp = _mm512_set1_epi32(p.zero_point);
    uint8_t *const out = p.out;
    for (size_t jj = 0; jj < p.nv; jj += 16) {
        const __mmask16 k = tail_mask(p.nv - jj);
        const tflite_cols c = tflite_cols_at(p.multiplier + jj, p.shift + jj, k);
        const __m512i add = cols_at(p.cols, jj, k);
        for (size_t ii = 0; ii < p.mv; ii++) {
            const __m512i x =
                row_sums(p.sums + (ptrdiff_t)ii * p.sums_rs + (ptrdiff_t)jj, k, add, p.rows, ii);
            _mm512_mask_cvtepi32_storeu_epi8(out + (ptrdiff_t)ii * p.out_rs + (ptrdiff_t)jj, k,
                                             tflite_rule(x, &c, vlo, vhi, vzp));
        }
    }
}

/* Sixteen columns at a time, their scales loaded once, down the rows:
 * (float)x * scale clamped to the bounds less the zero point, rounded to
 * nearest even, plus the zero point. */
static QMM_EPILOGUE_BLOCK_INLINE void float_block_avx512(const qmm_epilogue_block_params *params)
{
    const qmm_epilogue_block_params p = *params; /* a copy C's stores cannot change */
    const __m512 flo = _mm512_set1_ps((float)p.lo), fhi = _mm512_set1_ps((float)p.hi);
    const __m512i vzp = _mm512_set1_epi32(p.zero_point);
    uint8_t *const out = p.out;
    for (size_t jj = 0; jj < p.nv; jj += 16) {
        const __mmask16 k = tail_mask(p.nv - jj);
        const __m512 scale = _mm512_maskz_loadu_ps(k, p.qscale + jj);
        const __m512i add = cols_at(p.cols, jj, k);
        for (size_t ii = 0; ii < p.mv; ii++) {
            const __m512i x =
                row_sums(p.sums + (ptrdiff_t)ii * p.sums_rs + (ptrdiff_t)jj, k, add, p.rows, ii);
            const __m512 v = _mm512_min_ps(
                _mm512_max_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(x), scale), flo), fhi);
            _mm512_mask_cvtepi32_storeu_epi8(out + (ptrdiff_t)ii * p.out_rs + (ptrdiff_t)jj, k,
                                             _mm512_add_epi32(_mm512_cvtps_epi32(v), vzp));
        }
    }
}

/* Sixteen sums x at a time, each as x = h 2^22 + m 2^11 + l (h signed, m
 * and l in [0, 2^11)): y = h c22 + m c11 + l, with c the symmetric residues
 * of 2^22 and 2^11 modulo p, is congruent to x and below 2^19 in magnitude,
 * exact in float at every step; y / p errs by less than 2^-12 in float,
 * under the 1 / (2p) that parts it from a half-integer (p odd, at most 255),
 * so its rounding is y's nearest quotient and y - q p exactly the symmetric
 * residue. Whole vectors are stored unmasked (a masked vpmovdb to memory is
 * slow). */
static QMM_EPILOGUE_BLOCK_INLINE void residue_block_avx512(const qmm_epilogue_block_params *params)
{
    const int32_t p = params->modulus;
    const int32_t *const in = params->sums;
    uint8_t *const out = params->out;
    const ptrdiff_t in_rs = params->sums_rs, out_rs = params->out_rs;
    const size_t mv = params->mv, nv = params->nv;
    const int32_t r11 = (1 << 11) % p, r22 = (int32_t)(((int64_t)r11 << 11) % p);
    const __m512 c11 = _mm512_set1_ps((float)(r11 > p / 2 ? r11 - p : r11));
    const __m512 c22 = _mm512_set1_ps((float)(r22 > p / 2 ? r22 - p : r22));
    const __m512 vp = _mm512_set1_ps((float)p), inv = _mm512_set1_ps(1.0f / (float)p);
    const __m512i low = _mm512_set1_epi32(0x7ff);
    for (size_t ii = 0; ii < mv; ii++)
        for (size_t jj = 0; jj < nv; jj += 16) {
            const __mmask16 k = tail_mask(nv - jj);
            const __m512i x = _mm512_maskz_loadu_epi32(k, in + (ptrdiff_t)ii * in_rs + jj);
            const __m512 h = _mm512_cvtepi32_ps(_mm512_srai_epi32(x, 22));
            const __m512 m = _mm512_cvtepi32_ps(_mm512_and_si512(_mm512_srli_epi32(x, 11), low));
            const __m512 l = _mm512_cvtepi32_ps(_mm512_and_si512(x, low));
            const __m512 y = _mm512_fmadd_ps(h, c22, _mm512_fmadd_ps(m, c11, l));
            const __m512 q = _mm512_roundscale_ps(_mm512_mul_ps(y, inv),
                                                  _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            const __m128i bytes = _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(_mm512_fnmadd_ps(q, vp, y)));
            uint8_t *o = out + (ptrdiff_t)ii * out_rs + jj;
            if (nv - jj >= 16)
                _mm_storeu_si128((__m128i *)(void *)o, bytes);
            else
                _mm_mask_storeu_epi8(o, k, bytes);
        }
}
