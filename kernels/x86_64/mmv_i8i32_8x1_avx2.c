/*
 * AVX2 matrix-vector kernel, 8x1 tile, exact; only right for n == 1.
 * Packing: A i8_kin16 (K-inner: each row kp contiguous int8 values, kp a
 * multiple of 16), B i16_kin16 with one column (the vector, as int16).
 *
 * With n == 1 every byte of A is used once, so the cost is reading A (and
 * packing it, in a one-shot call): A stays int8, which makes its packing a
 * plain copy and halves what the kernel reads. Each A byte therefore is
 * sign-extended here (`vpmovsxbw` from memory, 16 values per instruction); the
 * vector is packed once as int16. Per 16 depths: one load of the vector, and
 * per row one `vpmovsxbw` + `vpmaddwd` + `vpaddd` into that row's accumulator
 * (8 int32 partial sums); the 8 accumulators are reduced horizontally once at
 * the end. Eight rows share each vector load and keep eight independent
 * streams of A in flight.
 *
 * Exactness: sign extension is exact, vpmaddwd's pairwise sums of int8*int8
 * products are exact, vpaddd and the reduction wrap modulo 2^32.
 */
#include <immintrin.h>

#include "../kernel.h"

enum { MR = 8 };

qmm_ukernel_fn qmm_x86_64_mmv_i8i32_8x1_avx2_run;  /* checks the signature */

/* Lane i of the result is the sum of the 8 lanes of v[i]. */
static inline __m256i reduce8(const __m256i v[MR])
{
    __m256i s01 = _mm256_hadd_epi32(v[0], v[1]);   /* per 128-bit half: pairs of 0,0,1,1 */
    __m256i s23 = _mm256_hadd_epi32(v[2], v[3]);
    __m256i s45 = _mm256_hadd_epi32(v[4], v[5]);
    __m256i s67 = _mm256_hadd_epi32(v[6], v[7]);
    __m256i s0123 = _mm256_hadd_epi32(s01, s23);   /* per half: 0,1,2,3 */
    __m256i s4567 = _mm256_hadd_epi32(s45, s67);   /* per half: 4,5,6,7 */
    /* Low halves hold rows' sums over lanes 0-3, high halves over lanes 4-7. */
    __m256i lo = _mm256_permute2x128_si256(s0123, s4567, 0x20);
    __m256i hi = _mm256_permute2x128_si256(s0123, s4567, 0x31);
    return _mm256_add_epi32(lo, hi);
}

void qmm_x86_64_mmv_i8i32_8x1_avx2_run(size_t kp, const void *pa, const void *pb, int32_t *c,
                                        ptrdiff_t rsc, ptrdiff_t csc)
{
    (void)csc;
    const int8_t *a = pa;
    const int16_t *b = pb;
    __m256i acc[MR];
    for (int i = 0; i < MR; i++)
        acc[i] = _mm256_setzero_si256();
    for (size_t p = 0; p < kp; p += 16) {
        __m256i v = _mm256_load_si256((const __m256i *)(const void *)(b + p));
        for (int i = 0; i < MR; i++) {
            __m128i ab = _mm_loadu_si128((const __m128i *)(const void *)(a + (size_t)i * kp + p));
            acc[i] = _mm256_add_epi32(acc[i], _mm256_madd_epi16(_mm256_cvtepi8_epi16(ab), v));
        }
    }
    int32_t t[MR];
    _mm256_storeu_si256((__m256i *)(void *)t, reduce8(acc));
    for (int i = 0; i < MR; i++)
        c[i * rsc] = t[i];
}
