/*
 * The panel loop shared by the NEON packers of 8 adjacent lines (B of the
 * arm64 8x8 kernels, row-major): panels by pairs, one 16-byte load per
 * source row and block, then the odd panel with 8-byte loads.
 */
#ifndef QMM_PACK_ARM64_LINES8_H
#define QMM_PACK_ARM64_LINES8_H

#include <stddef.h>
#include <stdint.h>

/* One block of kr depths: of two adjacent panels (to d0, d1), or of one. */
typedef void lines8_pair_fn(const int8_t *s, ptrdiff_t ds, int8_t *d0, int8_t *d1);
typedef void lines8_one_fn(const int8_t *s, ptrdiff_t ds, int8_t *d);

static inline __attribute__((always_inline)) void
lines8_panels(const int8_t *src, ptrdiff_t ds, size_t panels, size_t depths,
              unsigned char *dst, size_t panel_bytes, const unsigned kr, lines8_pair_fn *pair,
              lines8_one_fn *one)
{
    const size_t block = 8 * kr;  /* bytes of a block of kr depths in a panel */
    size_t j = 0;
    for (; j + 2 <= panels; j += 2) {
        int8_t *d0 = (int8_t *)(dst + j * panel_bytes), *d1 = d0 + panel_bytes;
        const int8_t *s = src + j * 8;
        for (size_t p = 0; p < depths; p += kr, s += kr * ds, d0 += block, d1 += block)
            pair(s, ds, d0, d1);
    }
    if (j < panels) {
        int8_t *d = (int8_t *)(dst + j * panel_bytes);
        const int8_t *s = src + j * 8;
        for (size_t p = 0; p < depths; p += kr, s += kr * ds, d += block)
            one(s, ds, d);
    }
}

#endif
