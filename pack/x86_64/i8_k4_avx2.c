/*
 * AVX2 bulk packers of the i8_k4 format (int8, 4 depths interleaved per line):
 * the operands of the 12x32 AVX-512 VNNI kernel from row-major sources. Both
 * are transposes by unpacks, without widening: B's of bytes across 4 source
 * rows, A's of 32-bit units across 4 rows at a time.
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

/* Two panels at a time (64 source bytes, a cache line, per row), quad after
 * quad: each panel is written in order. Walking every panel per quad instead
 * writes as many streams as panels, and panels a multiple of 4 KiB apart
 * (k = 384: 12 KiB) all fall in one L1 set: 3x slower at 128x384x1536. */
void qmm_pack_i8_k4_lines32_avx2(const int8_t *src, ptrdiff_t stride, size_t panels,
                                 size_t depths, unsigned char *dst, size_t panel_bytes)
{
    size_t j = 0;
    for (; j + 2 <= panels; j += 2)
        for (size_t p = 0; p < depths; p += 4) {
            const int8_t *s = src + 32 * j + (ptrdiff_t)p * stride;
            unsigned char *d = dst + j * panel_bytes + p * 32;
            quad32(s, stride, d);
            quad32(s + 32, stride, d + panel_bytes);
        }
    for (; j < panels; j++)
        for (size_t p = 0; p < depths; p += 4)
            quad32(src + 32 * j + (ptrdiff_t)p * stride, stride, dst + j * panel_bytes + p * 32);
}

/* A: depths adjacent, 12 lines (rows) per panel. Sixteen depths of rows
 * 4b..4b+3 are a 4x4 transpose of 32-bit units: row i's quad q goes to the
 * quad block q (48 bytes: 12 rows of 4) at row offset 4i. */
static inline void rows4_16(const int8_t *s, ptrdiff_t ls, unsigned char *d)
{
    __m128i x0 = _mm_loadu_si128((const __m128i *)(const void *)s);
    __m128i x1 = _mm_loadu_si128((const __m128i *)(const void *)(s + ls));
    __m128i x2 = _mm_loadu_si128((const __m128i *)(const void *)(s + 2 * ls));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(const void *)(s + 3 * ls));
    __m128i t0 = _mm_unpacklo_epi32(x0, x1), t1 = _mm_unpackhi_epi32(x0, x1);
    __m128i t2 = _mm_unpacklo_epi32(x2, x3), t3 = _mm_unpackhi_epi32(x2, x3);
    _mm_storeu_si128((__m128i *)(void *)d, _mm_unpacklo_epi64(t0, t2));
    _mm_storeu_si128((__m128i *)(void *)(d + 48), _mm_unpackhi_epi64(t0, t2));
    _mm_storeu_si128((__m128i *)(void *)(d + 96), _mm_unpacklo_epi64(t1, t3));
    _mm_storeu_si128((__m128i *)(void *)(d + 144), _mm_unpackhi_epi64(t1, t3));
}

void qmm_pack_i8_k4_rows12_avx2(const int8_t *src, ptrdiff_t stride, size_t panels,
                                size_t depths, unsigned char *dst, size_t panel_bytes)
{
    for (size_t j = 0; j < panels; j++, src += 12 * stride, dst += panel_bytes)
        for (size_t p = 0; p < depths; p += 16)
            for (unsigned b = 0; b < 3; b++)
                rows4_16(src + (ptrdiff_t)(4 * b) * stride + (ptrdiff_t)p, stride,
                         dst + p * 12 + 16 * b);
}

/* Line sums of a 12-line i8_k4_sums panel: vpmaddubsw by ones then vpmaddwd
 * by ones sum each line's 4 bytes of a quad into a 32-bit lane (exact: pairs
 * of bytes fit 16 bits). Two quads are 96 bytes, three vectors whose lanes
 * hold lines 0-7 | 8-11, 0-3 | 4-11: three accumulators, added by halves at
 * the end. */
static inline __m256i quad_sums(__m256i x)
{
    return _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8(1), x),
                             _mm256_set1_epi16(1));
}

void qmm_pack_i8_k4_sums12_avx2(unsigned char *panel, size_t kp)
{
    const unsigned char *x = panel;
    __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0;
    size_t quads = kp / 4, q = 0;
    for (; q + 2 <= quads; q += 2, x += 96) {
        s0 = _mm256_add_epi32(s0, quad_sums(_mm256_loadu_si256((const __m256i *)(const void *)x)));
        s1 = _mm256_add_epi32(s1, quad_sums(_mm256_loadu_si256((const __m256i *)(const void *)(x + 32))));
        s2 = _mm256_add_epi32(s2, quad_sums(_mm256_loadu_si256((const __m256i *)(const void *)(x + 64))));
    }
    if (q < quads) {  /* one quad left: lines 0-7, then 8-11 alone */
        s0 = _mm256_add_epi32(s0, quad_sums(_mm256_loadu_si256((const __m256i *)(const void *)x)));
        __m128i tail = _mm_loadu_si128((const __m128i *)(const void *)(x + 32));
        s1 = _mm256_add_epi32(s1, quad_sums(_mm256_zextsi128_si256(tail)));
    }
    __m128i *sums = (__m128i *)(void *)(panel + 12 * kp);
    _mm_storeu_si128(sums, _mm_add_epi32(_mm256_castsi256_si128(s0), _mm256_extracti128_si256(s1, 1)));
    _mm_storeu_si128(sums + 1, _mm_add_epi32(_mm256_extracti128_si256(s0, 1), _mm256_castsi256_si128(s2)));
    _mm_storeu_si128(sums + 2, _mm_add_epi32(_mm256_castsi256_si128(s1), _mm256_extracti128_si256(s2, 1)));
}
