/*
 * AVX2 bulk packers of the i16_k2 format (int16, depth pairs interleaved):
 * the operands of the 6x16 AVX2 kernel from row-major sources. Sign extension
 * is one vpmovsxbw per 16 source bytes; the rest is in-lane unpacks.
 */
#include <immintrin.h>

#include "../bulk.h"

static __m256i load16_i16(const int8_t *s)
{
    return _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)s));
}

/* One depth pair of one panel: the two source runs of 16 widen to x0, x1;
 * unpacking words gives the (x0, x1) pairs of columns 0-3 | 8-11 (lo) and
 * 4-7 | 12-15 (hi), and the lane swap puts columns 0-7 then 8-15: the 64
 * bytes of the panel's depth block. */
static inline void pair16(const int8_t *s0, const int8_t *s1, unsigned char *d)
{
    __m256i x0 = load16_i16(s0), x1 = load16_i16(s1);
    __m256i lo = _mm256_unpacklo_epi16(x0, x1), hi = _mm256_unpackhi_epi16(x0, x1);
    _mm256_storeu_si256((__m256i *)(void *)d, _mm256_permute2x128_si256(lo, hi, 0x20));
    _mm256_storeu_si256((__m256i *)(void *)(d + 32), _mm256_permute2x128_si256(lo, hi, 0x31));
}

enum { GROUP = 4 };  /* panels per pass: 64 source bytes, a cache line */

/* `group` consecutive panels from src, depth after depth. */
static inline __attribute__((always_inline)) void
pass(const int8_t *s, ptrdiff_t ds, size_t depths, unsigned char *d, size_t panel_bytes,
     const unsigned group)
{
    for (size_t p = 0; p < depths; p += 2, s += 2 * ds, d += 64)
        for (unsigned g = 0; g < group; g++)
            pair16(s + 16 * g, s + ds + 16 * g, d + g * panel_bytes);
}

/* B: lines (columns) adjacent, 16 per panel. A pass writes GROUP panels
 * together, so every source line it reads is whole and each panel is a
 * sequential stream of stores; the last panels go one per pass. */
void qmm_pack_i16_k2_lines16_avx2(const int8_t *src, ptrdiff_t ds, unsigned r, size_t panels, size_t depths,
                                  unsigned char *dst, size_t panel_bytes)
{
    (void)r; /* always the width: 16, 6, 32 */
    size_t j = 0;
    for (; j + GROUP <= panels; j += GROUP)
        pass(src + 16 * j, ds, depths, dst + j * panel_bytes, panel_bytes, GROUP);
    for (; j < panels; j++)
        pass(src + 16 * j, ds, depths, dst + j * panel_bytes, panel_bytes, 1);
}

/* A: 6 rows of adjacent depths. Per 16 depths, each row widens to 8 int32
 * lanes r_i, one depth pair each, and the panel gets 8 blocks of 6 pairs
 * (rows 0-5): 48 dwords, out[6b + i] = r_i[b], six 32-byte stores. Each
 * 128-bit half of a store holds 4 dwords of pairs b of one lane of the r_i
 * (pairs 0-3 low, 4-7 high): rows 0-3 of a block, rows 4-5 of one block with
 * rows 0-1 of the next, or rows 2-5 of a block. Unpacking dwords (t) then
 * qwords (u, x) and blending (w) builds them in-lane; a lane swap pairs them. */
void qmm_pack_i16_k2_rows6_avx2(const int8_t *src, ptrdiff_t ls, unsigned r, size_t panels, size_t depths,
                                unsigned char *dst, size_t panel_bytes)
{
    (void)r; /* always the width: 16, 6, 32 */
    for (size_t j = 0; j < panels; j++) {
        const int8_t *s = src + (ptrdiff_t)(6 * j) * ls;
        unsigned char *d = dst + j * panel_bytes;
        for (size_t p = 0; p < depths; p += 16, d += 8 * 24) {
            __m256i r0 = load16_i16(s + p), r1 = load16_i16(s + ls + p);
            __m256i r2 = load16_i16(s + 2 * ls + p), r3 = load16_i16(s + 3 * ls + p);
            __m256i r4 = load16_i16(s + 4 * ls + p), r5 = load16_i16(s + 5 * ls + p);
            __m256i t0 = _mm256_unpacklo_epi32(r0, r1), t1 = _mm256_unpackhi_epi32(r0, r1);
            __m256i t2 = _mm256_unpacklo_epi32(r2, r3), t3 = _mm256_unpackhi_epi32(r2, r3);
            __m256i t4 = _mm256_unpacklo_epi32(r4, r5), t5 = _mm256_unpackhi_epi32(r4, r5);
            __m256i halves[6] = {
                _mm256_unpacklo_epi64(t0, t2),   /* rows 0-3 of pair 0 */
                _mm256_blend_epi32(t4, t0, 0xcc), /* rows 4-5 of pair 0, 0-1 of 1 */
                _mm256_unpackhi_epi64(t2, t4),   /* rows 2-5 of pair 1 */
                _mm256_unpacklo_epi64(t1, t3),   /* rows 0-3 of pair 2 */
                _mm256_blend_epi32(t5, t1, 0xcc), /* rows 4-5 of pair 2, 0-1 of 3 */
                _mm256_unpackhi_epi64(t3, t5),   /* rows 2-5 of pair 3 */
            };
            for (int h = 0; h < 3; h++) {
                __m256i x = halves[2 * h], y = halves[2 * h + 1];
                _mm256_storeu_si256((__m256i *)(void *)(d + 32 * h),
                                    _mm256_permute2x128_si256(x, y, 0x20));
                _mm256_storeu_si256((__m256i *)(void *)(d + 96 + 32 * h),
                                    _mm256_permute2x128_si256(x, y, 0x31));
            }
        }
    }
}
