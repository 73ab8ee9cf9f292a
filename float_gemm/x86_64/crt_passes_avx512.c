/* The Chinese-remainder passes in AVX-512 F/BW/VL intrinsics
 * (cmake/kernels_x86_64.cmake), chosen with the VNNI tier: the scaling and
 * the rebuild eight doubles per vector, the residues sixteen floats per
 * vector on the digits of crt_moduli.h. Each operation is the template's
 * (float_gemm/crt_passes_body.h) or one with the same result, every step of
 * the residues being exact, so the same bits. Built with -ffp-contract=off. */
#include <immintrin.h>

#include "../crt_passes.h"

static inline __m512d round_even(__m512d x)
{
    return _mm512_roundscale_pd(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

/* Bits 2e and 2e + 1 for each of the first `count` elements (at most 4). */
static inline __mmask8 pairs(size_t count)
{
    return count >= 4 ? (__mmask8)0xff : (__mmask8)((1u << (2 * count)) - 1);
}

/* The scales of `count` (at most 8) elements from scale[0], f1 and f2
 * interleaved in memory, as two vectors. */
static inline void scales_at(const qmm_crt_scale *scale, size_t count, __m512d *f1, __m512d *f2)
{
    const __m512d a = _mm512_maskz_loadu_pd(pairs(count), &scale[0].f1);
    const __m512d b = _mm512_maskz_loadu_pd(pairs(count > 4 ? count - 4 : 0), &scale[4].f1);
    *f1 = _mm512_permutex2var_pd(a, _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), b);
    *f2 = _mm512_permutex2var_pd(a, _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15), b);
}

/* x f1 f2 rounded for `count` (at most 8) elements from x (roundscale is
 * the template's round_whole: ties to even, the sign of zero kept). */
static inline __m512d scaled(const void *x, int f64, const qmm_crt_scale *scale,
                             int per_element, size_t count)
{
    const __mmask8 k = count >= 8 ? (__mmask8)0xff : (__mmask8)((1u << count) - 1);
    const __m512d e = f64 ? _mm512_maskz_loadu_pd(k, x)
                          : _mm512_cvtps_pd(_mm256_maskz_loadu_ps(k, x));
    __m512d f1 = _mm512_set1_pd(scale[0].f1), f2 = _mm512_set1_pd(scale[0].f2);
    if (per_element)
        scales_at(scale, count, &f1, &f2);
    return round_even(_mm512_mul_pd(_mm512_mul_pd(e, f1), f2));
}

enum { SCALED = 256 };  /* elements scaled at once, on the stack */

/* The template's steps, on the split for float lanes (crt_moduli.h): a run of
 * elements scaled and cut into digits, then each modulus's residues of the
 * run, sixteen at a time, stored as sixteen bytes, one modulus's run after
 * another (the moduli's planes are a multiple of 4 KiB apart: stores to all
 * of them in turn would contend for the same cache sets). Every step is
 * exact, so the residues are the template's. */
static void residues_avx512(const void *x, int f64, const qmm_crt_scale *scale,
                            int per_element, size_t len, const qmm_crt_moduli *mod, int8_t *out,
                            size_t plane)
{
    const size_t elem = f64 ? sizeof(double) : sizeof(float);
    _Alignas(64) float digits[4][SCALED];
    for (size_t j0 = 0; j0 < len; j0 += SCALED) {
        const size_t run = len - j0 < SCALED ? len - j0 : SCALED;
        for (size_t jj = 0; jj < run; jj += 8) {
            __m512d r = scaled((const char *)x + (j0 + jj) * elem, f64,
                               per_element ? scale + j0 + jj : scale, per_element,
                               run - jj < 8 ? run - jj : 8);
            for (int i = 3; i > 0; i--) {
                const double unit = (double)((int64_t)1 << (QMM_CRT_DIGIT * i));
                const __m512d d = round_even(_mm512_mul_pd(r, _mm512_set1_pd(1 / unit)));
                r = _mm512_fnmadd_pd(d, _mm512_set1_pd(unit), r);
                _mm256_store_ps(&digits[i][jj], _mm512_cvtpd_ps(d));
            }
            _mm256_store_ps(&digits[0][jj], _mm512_cvtpd_ps(r));
        }
        for (unsigned t = 0; t < mod->count; t++) {
            const __m512 p = _mm512_set1_ps(mod->p_f[t]), inv = _mm512_set1_ps(mod->inv_p_f[t]);
            const __m512 c1 = _mm512_set1_ps(mod->digit[t][0]);
            const __m512 c2 = _mm512_set1_ps(mod->digit[t][1]);
            const __m512 c3 = _mm512_set1_ps(mod->digit[t][2]);
            int8_t *o = out + t * plane + j0;
            for (size_t jj = 0; jj < run; jj += 16) {
                __m512 y = _mm512_fmadd_ps(_mm512_load_ps(&digits[1][jj]), c1,
                                           _mm512_load_ps(&digits[0][jj]));
                y = _mm512_fmadd_ps(_mm512_load_ps(&digits[2][jj]), c2, y);
                y = _mm512_fmadd_ps(_mm512_load_ps(&digits[3][jj]), c3, y);
                const __m512 q = _mm512_roundscale_ps(_mm512_mul_ps(y, inv),
                                                      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
                const __m128i bytes =
                    _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(_mm512_fnmadd_ps(q, p, y)));
                if (run - jj >= 16)
                    _mm_storeu_si128((__m128i *)(void *)(o + jj), bytes);
                else
                    _mm_mask_storeu_epi8(o + jj, (__mmask16)((1u << (run - jj)) - 1), bytes);
            }
        }
    }
}

/* Sixteen columns at a time: t1 and t2 summed in t's order (t2's products
 * rounded before their sums, as the template's), then the template's v
 * and x. */
static void rebuild_avx512(const int8_t *res, size_t plane, size_t len, const qmm_crt_moduli *mod,
                           double *x)
{
    const __m512d big_hi = _mm512_set1_pd(mod->big_hi), big_lo = _mm512_set1_pd(mod->big_lo);
    for (size_t j0 = 0; j0 < len; j0 += 16) {
        const __mmask16 k = len - j0 >= 16 ? (__mmask16)0xffff
                                           : (__mmask16)((1u << (len - j0)) - 1);
        __m512d t1[2], t2[2];
        t1[0] = t1[1] = t2[0] = t2[1] = _mm512_setzero_pd();
        for (unsigned t = 0; t < mod->count; t++) {
            const __m512i c = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(k, res + t * plane + j0));
            const __m512d f1 = _mm512_set1_pd(mod->f1[t]), f2 = _mm512_set1_pd(mod->f2[t]);
            const __m512d c0 = _mm512_cvtepi32_pd(_mm512_castsi512_si256(c));
            const __m512d c1 = _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(c, 1));
            /* c f1 and the sums are exact (crt_moduli.h): fused, the same. */
            t1[0] = _mm512_fmadd_pd(c0, f1, t1[0]);
            t1[1] = _mm512_fmadd_pd(c1, f1, t1[1]);
            t2[0] = _mm512_add_pd(t2[0], _mm512_mul_pd(c0, f2));
            t2[1] = _mm512_add_pd(t2[1], _mm512_mul_pd(c1, f2));
        }
        for (int h = 0; h < 2; h++) {
            __m512d v = _mm512_add_pd(_mm512_sub_pd(t1[h], round_even(t1[h])), t2[h]);
            v = _mm512_sub_pd(v, round_even(v));
            _mm512_mask_storeu_pd(x + j0 + 8 * h, (__mmask8)(k >> (8 * h)),
                                  _mm512_add_pd(_mm512_mul_pd(v, big_hi), _mm512_mul_pd(v, big_lo)));
        }
    }
}

const qmm_crt_passes qmm_crt_passes_avx512 = {residues_avx512, rebuild_avx512};
