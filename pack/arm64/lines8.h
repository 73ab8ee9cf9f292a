/*
 * The panel loop shared by the NEON packers of 8 adjacent lines (B of the
 * arm64 8x8 kernels, row-major): panels by pairs, one 16-byte load per
 * source row and block, then the odd panel with 8-byte loads. A panel of r
 * lines, r a multiple of 8, is r/8 groups of 8 lines whose blocks of kr
 * depths interleave (group q's at q * 8 * kr in each r * kr bytes of the
 * panel): the same loop over groups, each written at its place.
 */
#ifndef QMM_PACK_ARM64_LINES8_H
#define QMM_PACK_ARM64_LINES8_H

#include <stddef.h>
#include <stdint.h>

/* One block of kr depths: of two adjacent panels (to d0, d1), or of one. */
typedef void lines8_pair_fn(const int8_t *s, ptrdiff_t ds, int8_t *d0, int8_t *d1);
typedef void lines8_one_fn(const int8_t *s, ptrdiff_t ds, int8_t *d);

/* Where group u of 8 lines starts: its panel, then its place in the block. */
static inline int8_t *lines8_group(unsigned char *dst, size_t panel_bytes, unsigned r,
                                   unsigned kr, size_t u)
{
    return (int8_t *)(dst + u / (r / 8) * panel_bytes + u % (r / 8) * 8 * kr);
}

static inline __attribute__((always_inline)) void
lines8_panels(const int8_t *src, ptrdiff_t ds, unsigned r, size_t panels, size_t depths,
              unsigned char *dst, size_t panel_bytes, const unsigned kr, lines8_pair_fn *pair,
              lines8_one_fn *one)
{
    const size_t step = (size_t)r * kr;  /* bytes of a block of kr depths in a panel */
    const size_t groups = panels * (r / 8);
    size_t u = 0;
    for (; u + 2 <= groups; u += 2) {
        int8_t *d0 = lines8_group(dst, panel_bytes, r, kr, u);
        int8_t *d1 = lines8_group(dst, panel_bytes, r, kr, u + 1);
        const int8_t *s = src + u * 8;
        for (size_t p = 0; p < depths; p += kr, s += kr * ds, d0 += step, d1 += step)
            pair(s, ds, d0, d1);
    }
    if (u < groups) {
        int8_t *d = lines8_group(dst, panel_bytes, r, kr, u);
        const int8_t *s = src + u * 8;
        for (size_t p = 0; p < depths; p += kr, s += kr * ds, d += step)
            one(s, ds, d);
    }
}

#endif
