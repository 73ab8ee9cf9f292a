/* Column sums of a 32-column i8_k4(_sums) panel with AVX-512 VNNI (VL, on
 * ymm): vpdpbusd of ones by a quad block's bytes adds each column's 4 bytes
 * into its 32-bit lane in one instruction, where AVX2 takes three
 * (i8_k4_avx2.c); ones are unsigned and the bytes signed, so nothing
 * saturates. A quad block is 4 vectors of 8 columns each, one accumulator
 * per vector. */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "../bulk.h"

void qmm_pack_i8_k4_sums32_avx512vnni(const unsigned char *panel, size_t kp, int32_t *out)
{
    const __m256i *x = (const __m256i *)(const void *)panel, ones = _mm256_set1_epi8(1);
    __m256i s[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(),
                    _mm256_setzero_si256()};
    for (size_t q = 0; q < kp / 4; q++, x += 4)
        for (int v = 0; v < 4; v++)
            s[v] = _mm256_dpbusd_epi32(s[v], ones, _mm256_loadu_si256(x + v));
    for (int v = 0; v < 4; v++)
        _mm256_storeu_si256((__m256i *)(void *)out + v, s[v]);
}
