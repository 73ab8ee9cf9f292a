/* The output stage compiled for AVX-512 F/BW/VL (cmake/kernels_x86_64.cmake),
 * chosen with the VNNI tier (QMM_CPU_AVX512VNNI, which implies them): sixteen
 * lanes per vector; the same operations, so the same bits. TFLite's rule has
 * its own row, as in the AVX2 instance, with its tail under a mask instead of
 * one value at a time. */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

static void tflite_row_avx512(const int32_t *in, const uint32_t *cols, uint32_t r,
                              const int32_t *m, const int32_t *sh, uint8_t *out, size_t nv,
                              int32_t lo, int32_t hi, int32_t zp);

#define QMM_EPILOGUE_TILE_FN qmm_epilogue_tile_avx512
#define QMM_EPILOGUE_TFLITE_ROW tflite_row_avx512
#include "../epilogue_tile.h"

/* Sixteen values at a time, the AVX2 row's steps: the doubling high multiply
 * as floor((x m + 2^30) / 2^31) from the even lanes' 64-bit products and the
 * odd ones', their quotients' low halves merged under a mask; then
 * RoundingDivideByPOT, its two conditional increments as masked adds; the
 * low bytes stored by vpmovdb. The lanes past nv are loaded as zeros and
 * never stored. */
static void tflite_row_avx512(const int32_t *in, const uint32_t *cols, uint32_t r,
                              const int32_t *m, const int32_t *sh, uint8_t *out, size_t nv,
                              int32_t lo, int32_t hi, int32_t zp)
{
    const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi32(1);
    const __m512i nudge = _mm512_set1_epi64((int64_t)1 << 30);
    const __m512i vr = _mm512_set1_epi32((int32_t)r), vlo = _mm512_set1_epi32(lo),
                  vhi = _mm512_set1_epi32(hi), vzp = _mm512_set1_epi32(zp);
    for (size_t jj = 0; jj < nv; jj += 16) {
        const __mmask16 k = nv - jj >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (nv - jj)) - 1);
        __m512i x = _mm512_add_epi32(_mm512_maskz_loadu_epi32(k, in + jj), vr);
        if (cols != NULL)
            x = _mm512_add_epi32(x, _mm512_maskz_loadu_epi32(k, cols + jj));
        const __m512i mul = _mm512_maskz_loadu_epi32(k, m + jj);
        const __m512i s = _mm512_maskz_loadu_epi32(k, sh + jj);
        const __m512i left = _mm512_max_epi32(s, zero);
        const __m512i right = _mm512_sub_epi32(left, s);
        x = _mm512_sllv_epi32(x, left);
        const __m512i even = _mm512_add_epi64(_mm512_mul_epi32(x, mul), nudge);
        const __m512i odd = _mm512_add_epi64(
            _mm512_mul_epi32(_mm512_srli_epi64(x, 32), _mm512_srli_epi64(mul, 32)), nudge);
        const __m512i h = _mm512_mask_blend_epi32((__mmask16)0xaaaa, _mm512_srli_epi64(even, 31),
                                                  _mm512_slli_epi64(odd, 1));
        const __m512i mask = _mm512_sub_epi32(_mm512_sllv_epi32(one, right), one);
        __m512i threshold = _mm512_srli_epi32(mask, 1);
        threshold = _mm512_mask_add_epi32(threshold, _mm512_cmplt_epi32_mask(h, zero), threshold,
                                          one);
        __m512i q = _mm512_srav_epi32(h, right);
        q = _mm512_mask_add_epi32(q, _mm512_cmpgt_epi32_mask(_mm512_and_si512(h, mask), threshold),
                                  q, one);
        q = _mm512_add_epi32(_mm512_min_epi32(_mm512_max_epi32(q, vlo), vhi), vzp);
        _mm512_mask_cvtepi32_storeu_epi8(out + jj, k, q);
    }
}
