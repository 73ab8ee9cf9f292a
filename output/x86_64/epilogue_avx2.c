/* The output stage compiled for AVX2 (-mavx2, cmake/kernels_x86_64.cmake):
 * eight lanes per vector; the same operations, so the same bits. TFLite's
 * rule has its own row: the compiler's version of its 64-bit products
 * shuffles lanes back and forth. */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

static void tflite_row_avx2(const int32_t *in, const uint32_t *cols, uint32_t r,
                            const int32_t *m, const int32_t *sh, uint8_t *out, size_t nv,
                            int32_t lo, int32_t hi, int32_t zp);

static void float_block_avx2(const int32_t *in, ptrdiff_t in_rs, const uint32_t *rows,
                             const uint32_t *cols, const float *sc, uint8_t *out,
                             ptrdiff_t out_rs, size_t mv, size_t nv, int32_t lo, int32_t hi,
                             int32_t zp);

#define QMM_EPILOGUE_TILE_FN qmm_epilogue_tile_avx2
#define QMM_EPILOGUE_TFLITE_ROW tflite_row_avx2
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

/* Eight values at a time: the doubling high multiply as floor((x m + 2^30) /
 * 2^31) (the template's), from the even lanes' products and the odd ones'
 * (vpmuldq takes the low half of each 64-bit lane), their quotients' low
 * halves put back in place by one blend; then RoundingDivideByPOT with the
 * per-lane shift; each lane's low byte gathered into eight bytes. */
static void tflite_row_avx2(const int32_t *in, const uint32_t *cols, uint32_t r,
                            const int32_t *m, const int32_t *sh, uint8_t *out, size_t nv,
                            int32_t lo, int32_t hi, int32_t zp)
{
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1);
    const __m256i nudge = _mm256_set1_epi64x((int64_t)1 << 30);
    const __m256i vr = _mm256_set1_epi32((int32_t)r), vlo = _mm256_set1_epi32(lo),
                  vhi = _mm256_set1_epi32(hi), vzp = _mm256_set1_epi32(zp);
    size_t jj = 0;
    for (; jj + 8 <= nv; jj += 8) {
        __m256i x = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(in + jj)), vr);
        if (cols != NULL)
            x = _mm256_add_epi32(x, _mm256_loadu_si256((const __m256i *)(cols + jj)));
        const __m256i mul = _mm256_loadu_si256((const __m256i *)(m + jj));
        const __m256i s = _mm256_loadu_si256((const __m256i *)(sh + jj));
        const __m256i left = _mm256_max_epi32(s, zero);
        const __m256i right = _mm256_sub_epi32(left, s);
        x = _mm256_sllv_epi32(x, left);
        const __m256i even = _mm256_add_epi64(_mm256_mul_epi32(x, mul), nudge);
        const __m256i odd = _mm256_add_epi64(
            _mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(mul, 32)), nudge);
        const __m256i h = _mm256_blend_epi32(_mm256_srli_epi64(even, 31),
                                             _mm256_slli_epi64(odd, 1), 0xaa);
        const __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, right), one);
        const __m256i threshold =
            _mm256_sub_epi32(_mm256_srli_epi32(mask, 1), _mm256_cmpgt_epi32(zero, h));
        __m256i q = _mm256_srav_epi32(h, right);
        q = _mm256_sub_epi32(q, _mm256_cmpgt_epi32(_mm256_and_si256(h, mask), threshold));
        store_low_bytes(out + jj,
                        _mm256_add_epi32(_mm256_min_epi32(_mm256_max_epi32(q, vlo), vhi), vzp));
    }
    for (; jj < nv; jj++) {
        const int32_t v = qmm_epilogue_tile_avx2_rule_tflite(
            (int32_t)((uint32_t)in[jj] + (cols != NULL ? cols[jj] : 0) + r), m[jj], sh[jj]);
        out[jj] = (uint8_t)((v < lo ? lo : v > hi ? hi : v) + zp);
    }
}

/* ONNX's float rule eight columns at a time, their scales loaded once, down
 * the rows: (float)x * scale clamped to the bounds less the zero point,
 * rounded to nearest even by vcvtps2dq (the template's add and take away of
 * 1.5 * 2^23 rounds the same in every rounding mode, on values so clamped),
 * plus the zero point; the last few columns by the template's row. */
static void float_block_avx2(const int32_t *in, ptrdiff_t in_rs, const uint32_t *rows,
                             const uint32_t *cols, const float *sc, uint8_t *out,
                             ptrdiff_t out_rs, size_t mv, size_t nv, int32_t lo, int32_t hi,
                             int32_t zp)
{
    const __m256 flo = _mm256_set1_ps((float)lo), fhi = _mm256_set1_ps((float)hi);
    const __m256i vzp = _mm256_set1_epi32(zp);
    size_t jj = 0;
    for (; jj + 8 <= nv; jj += 8) {
        const __m256 scale = _mm256_loadu_ps(sc + jj);
        const __m256i add = cols != NULL ? _mm256_loadu_si256((const __m256i *)(cols + jj))
                                         : _mm256_setzero_si256();
        for (size_t ii = 0; ii < mv; ii++) {
            __m256i x = _mm256_add_epi32(
                _mm256_loadu_si256((const __m256i *)(in + (ptrdiff_t)ii * in_rs + (ptrdiff_t)jj)),
                add);
            if (rows != NULL)
                x = _mm256_add_epi32(x, _mm256_set1_epi32((int32_t)rows[ii]));
            const __m256 v = _mm256_min_ps(
                _mm256_max_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(x), scale), flo), fhi);
            store_low_bytes(out + (ptrdiff_t)ii * out_rs + (ptrdiff_t)jj,
                            _mm256_add_epi32(_mm256_cvtps_epi32(v), vzp));
        }
    }
    for (size_t ii = 0; jj < nv && ii < mv; ii++)
        qmm_epilogue_tile_avx2_requantize_row(
            in + (ptrdiff_t)ii * in_rs + (ptrdiff_t)jj, cols != NULL ? cols + jj : NULL,
            rows != NULL ? rows[ii] : 0, out + (ptrdiff_t)ii * out_rs + (ptrdiff_t)jj, nv - jj,
            NULL, NULL, sc + jj, lo, hi, zp, QMM_ROUND_FLOAT, cols != NULL);
}
