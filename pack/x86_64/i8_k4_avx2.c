/*
 * AVX2 bulk packer of the i8_k4 formats (int8, 4 depths interleaved per line)
 * for B of the 12x32 AVX-512 VNNI and 32x32 AMX kernels from a row-major source, a transpose
 * by unpacks of bytes across 4 source rows, and the column sums of its panels.
 */
#include <immintrin.h>

#include "../bulk.h"

/* B: lines (columns) adjacent, 32 per panel. One depth quad of one panel: the
 * four source rows x0..x3 (32 columns each) interleave bytes then words into
 * the 4-byte groups of columns 0-3 | 16-19 (c0), 4-7 | 20-23 (c1), 8-11 |
 * 24-27 (c2), 12-15 | 28-31 (c3); the lane swaps put them in column order:
 * the 128 bytes of the panel's quad block. */
static inline void quad32(const int8_t *s, ptrdiff_t ds, unsigned char *d)
{
    __m256i x0 = _mm256_loadu_si256((const __m256i *)(const void *)s);
    __m256i x1 = _mm256_loadu_si256((const __m256i *)(const void *)(s + ds));
    __m256i x2 = _mm256_loadu_si256((const __m256i *)(const void *)(s + 2 * ds));
    __m256i x3 = _mm256_loadu_si256((const __m256i *)(const void *)(s + 3 * ds));
    __m256i t0 = _mm256_unpacklo_epi8(x0, x1), t1 = _mm256_unpackhi_epi8(x0, x1);
    __m256i t2 = _mm256_unpacklo_epi8(x2, x3), t3 = _mm256_unpackhi_epi8(x2, x3);
    __m256i c0 = _mm256_unpacklo_epi16(t0, t2), c1 = _mm256_unpackhi_epi16(t0, t2);
    __m256i c2 = _mm256_unpacklo_epi16(t1, t3), c3 = _mm256_unpackhi_epi16(t1, t3);
    __m256i *o = (__m256i *)(void *)d;
    _mm256_storeu_si256(o, _mm256_permute2x128_si256(c0, c1, 0x20));
    _mm256_storeu_si256(o + 1, _mm256_permute2x128_si256(c2, c3, 0x20));
    _mm256_storeu_si256(o + 2, _mm256_permute2x128_si256(c0, c1, 0x31));
    _mm256_storeu_si256(o + 3, _mm256_permute2x128_si256(c2, c3, 0x31));
}

/* `group` adjacent panels, quad after quad: each panel is written in order,
 * and each source row is read group * 32 bytes at a time. */
static inline __attribute__((always_inline)) void
pass(const int8_t *s, ptrdiff_t ds, size_t depths, unsigned char *d, size_t panel_bytes,
     const unsigned group)
{
    for (size_t p = 0; p < depths; p += 4, s += 4 * ds, d += 128)
        for (unsigned g = 0; g < group; g++)
            quad32(s + 32 * g, ds, d + g * panel_bytes);
}

enum { GROUP = 4 };  /* panels per pass: 128 source bytes, two cache lines, per row */

/* GROUP panels at a time, then the rest one by one. Walking every panel per
 * quad instead writes as many streams as panels, and panels a multiple of
 * 4 KiB apart (k = 384: 12 KiB) all fall in one L1 set: 3x slower at
 * 128x384x1536. */
void qmm_pack_i8_k4_lines32_avx2(const int8_t *src, ptrdiff_t stride, unsigned r, size_t panels,
                                 size_t depths, unsigned char *dst, size_t panel_bytes)
{
    (void)r; /* always the width: 16, 6, 32 */
    size_t j = 0;
    for (; j + GROUP <= panels; j += GROUP)
        pass(src + 32 * j, stride, depths, dst + j * panel_bytes, panel_bytes, GROUP);
    for (; j < panels; j++)
        pass(src + 32 * j, stride, depths, dst + j * panel_bytes, panel_bytes, 1);
}

/* Column sums of a 32-column i8_k4(_sums) panel: vpmaddubsw by ones then
 * vpmaddwd by ones sum each column's 4 bytes of a quad into its 32-bit lane
 * (exact: pairs of bytes fit 16 bits); a quad block is 4 vectors of 8
 * columns each, one accumulator per vector. */
static inline __m256i quad_sums(__m256i x)
{
    return _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8(1), x),
                             _mm256_set1_epi16(1));
}

void qmm_pack_i8_k4_sums32_avx2(const unsigned char *panel, size_t kp, int32_t *out)
{
    const __m256i *x = (const __m256i *)(const void *)panel;
    __m256i s[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(),
                    _mm256_setzero_si256()};
    for (size_t q = 0; q < kp / 4; q++, x += 4)
        for (int v = 0; v < 4; v++)
            s[v] = _mm256_add_epi32(s[v], quad_sums(_mm256_loadu_si256(x + v)));
    __m256i *sums = (__m256i *)(void *)out;
    for (int v = 0; v < 4; v++)
        _mm256_storeu_si256(sums + v, s[v]);
}
