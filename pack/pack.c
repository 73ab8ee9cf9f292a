#include "pack.h"

/*
 * One template, instantiated per format so that the element width and the
 * interleave are constants in each inner loop. The destination is written in
 * order (line-major inside each depth block), which keeps stores streaming;
 * the source is read with whatever strides the caller has.
 */
static inline __attribute__((always_inline)) void
pack_template(unsigned r, size_t kp, const int8_t *src, ptrdiff_t ls, ptrdiff_t ds,
              unsigned lines, size_t k, void *dst, const unsigned kr, const unsigned eb)
{
    int8_t *d8 = dst;
    int16_t *d16 = dst;
    size_t full = k / kr * kr;  /* depths whose whole block is valid */
    size_t o = 0;
    for (size_t p0 = 0; p0 < kp; p0 += kr) {
        for (unsigned i = 0; i < r; i++) {
            const int8_t *s = src + (ptrdiff_t)i * ls + (ptrdiff_t)p0 * ds;
            for (unsigned q = 0; q < kr; q++, o++) {
                int8_t v = 0;
                if (i < lines && (p0 < full || p0 + q < k))
                    v = s[(ptrdiff_t)q * ds];
                if (eb == 1)
                    d8[o] = v;
                else
                    d16[o] = v;
            }
        }
    }
}

#define QMM_PACK_INSTANCE(fn, kr, eb)                                                  \
    static void fn(unsigned r, size_t kp, const int8_t *src, ptrdiff_t ls,             \
                   ptrdiff_t ds, unsigned lines, size_t k, void *dst)                  \
    {                                                                                  \
        pack_template(r, kp, src, ls, ds, lines, k, dst, kr, eb);                      \
    }

QMM_PACK_INSTANCE(pack_i8_k1, 1, 1)
QMM_PACK_INSTANCE(pack_i8_k4, 4, 1)
QMM_PACK_INSTANCE(pack_i16_k2, 2, 2)

const qmm_pack_format qmm_pack_formats[QMM_PACK_COUNT] = {
    [QMM_PACK_I8_K1] = {"i8_k1", 1, 1, 64, pack_i8_k1},
    [QMM_PACK_I8_K4] = {"i8_k4", 4, 1, 64, pack_i8_k4},
    [QMM_PACK_I16_K2] = {"i16_k2", 2, 2, 64, pack_i16_k2},
};

size_t qmm_pack_padded_depth(const qmm_pack_format *f, size_t k)
{
    size_t rem = k % f->kr;
    if (rem == 0)
        return k;
    size_t pad = f->kr - rem;
    return k > SIZE_MAX - pad ? 0 : k + pad;
}

size_t qmm_pack_panel_bytes(const qmm_pack_format *f, unsigned r, size_t kp)
{
    size_t line_bytes = (size_t)r * f->elem_bytes;
    if (kp != 0 && line_bytes > SIZE_MAX / kp)
        return 0;
    size_t bytes = line_bytes * kp;
    size_t mask = (size_t)f->align - 1;
    if (bytes > SIZE_MAX - mask)
        return 0;
    return (bytes + mask) & ~mask;
}
