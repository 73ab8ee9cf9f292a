#include "pack.h"

#include <string.h>

/*
 * One template, instantiated per format so that the layout, the element width
 * and the interleave are constants in each inner loop. Each instance calls it
 * with the source strides that are 1 in the common cases made constant (A
 * row-major: depth stride 1; B row-major: line stride 1), and the layout code
 * picks its loop order from them: where source and destination run the same
 * way (K-inner from depth stride 1) the inner loop is a plain widening copy the
 * compiler vectorizes; where they cross (a transpose) the inner loops have
 * constant lengths the compiler unrolls. The transpose into K-inner lines (B
 * of the matrix kernels, and A of a GEMV run as a transpose) goes through a
 * small local block so that it is vectorized too: see transpose_block. Any
 * other strides (zero, negative) take the general instance, same code with
 * the strides as variables (a line stride of 1 keeps its constant instance
 * whatever the depth stride: 0, negative or huge).
 * The valid part of the panel is copied without tests in the inner loops and
 * the padding (lines past `lines`, depths past k) is zero-filled separately.
 */
#define ALWAYS_INLINE inline __attribute__((always_inline))

enum { TB = 32 };  /* depths per block of a transpose into K-inner lines */

static ALWAYS_INLINE void put(void *dst, size_t o, int8_t v, const unsigned eb)
{
    if (eb == 1)
        ((int8_t *)dst)[o] = v;
    else
        ((int16_t *)dst)[o] = v;
}

static ALWAYS_INLINE void zero(void *dst, size_t from, size_t to, const unsigned eb)
{
    for (size_t o = from; o < to; o++)
        put(dst, o, 0, eb);
}

/* Transpose one block: depths [0, n) of L <= 4 lines that are contiguous in
 * the source (line stride 1), into K-inner lines of kp elements starting at
 * dst index o. First each depth's L bytes are copied, as one small memcpy,
 * into row q of a local n x 4 block; then each line's n depths, a column of
 * the block, become one contiguous run of the destination. The compiler
 * vectorizes the second loop as loads of 4-element groups split by lane
 * (on SSE2: pand/psrlw + packuswb, then punpck for int16), where reading the
 * source directly would be one byte load per element. */
static ALWAYS_INLINE void
transpose_block(const int8_t *s, ptrdiff_t ds, size_t n, void *dst, size_t o, size_t kp,
                const unsigned L, const unsigned eb)
{
    int8_t t[TB][4];
    for (size_t q = 0; q < n; q++)
        memcpy(t[q], s + (ptrdiff_t)q * ds, L);
    for (size_t q = 0; q < n; q++)
        for (unsigned i = 0; i < L; i++)
            put(dst, o + (size_t)i * kp + q, t[q][i], eb);
}

/* Depths [0, n) of all the lines of a transposed source into K-inner lines,
 * four lines at a time, the last one to three with their own constant count.
 * The n x lines block of the source is read while it is in the cache. */
static ALWAYS_INLINE void
transpose_depths(const int8_t *s, ptrdiff_t ds, size_t n, unsigned lines, void *dst, size_t o,
                 size_t kp, const unsigned eb)
{
    unsigned i = 0;
    for (; lines - i >= 4; i += 4)
        transpose_block(s + i, ds, n, dst, o + (size_t)i * kp, kp, 4, eb);
    switch (lines - i) {
    case 3:
        transpose_block(s + i, ds, n, dst, o + (size_t)i * kp, kp, 3, eb);
        break;
    case 2:
        transpose_block(s + i, ds, n, dst, o + (size_t)i * kp, kp, 2, eb);
        break;
    case 1:
        transpose_block(s + i, ds, n, dst, o + (size_t)i * kp, kp, 1, eb);
        break;
    }
}

/* K-inner: line i occupies [i*kp, (i+1)*kp). */
static ALWAYS_INLINE void
pack_k_inner(unsigned r, size_t kp, const int8_t *src, ptrdiff_t ls, ptrdiff_t ds,
             unsigned lines, size_t k, void *dst, const unsigned eb)
{
    if (ds == 1 || ls != 1) {
        /* Line by line: each line is one contiguous run of the destination. */
        for (unsigned i = 0; i < lines; i++) {
            const int8_t *s = src + (ptrdiff_t)i * ls;
            size_t o = (size_t)i * kp;
            for (size_t p = 0; p < k; p++)
                put(dst, o + p, s[(ptrdiff_t)p * ds], eb);
        }
    } else {
        /* Lines contiguous in the source: a transpose, by blocks of TB
         * depths (a constant count but for the last block). */
        size_t p0 = 0;
        for (; k - p0 >= TB; p0 += TB)
            transpose_depths(src + (ptrdiff_t)p0 * ds, ds, TB, lines, dst, p0, kp, eb);
        if (p0 < k)
            transpose_depths(src + (ptrdiff_t)p0 * ds, ds, k - p0, lines, dst, p0, kp, eb);
    }
    for (unsigned i = 0; i < lines; i++)
        zero(dst, (size_t)i * kp + k, (size_t)(i + 1) * kp, eb);
    zero(dst, (size_t)lines * kp, (size_t)r * kp, eb);
}

/* Interleaved: blocks of kr depths, line-major inside each block. Unless the
 * lines are what is contiguous in the source (then a block is best copied as
 * is, a row of lines at a time), full blocks go G at a time (G*kr >= 16
 * depths) line by line, so that each line reads G*kr depths in a
 * constant-length loop the compiler unrolls. */
static ALWAYS_INLINE void
pack_interleaved(unsigned r, size_t kp, const int8_t *src, ptrdiff_t ls, ptrdiff_t ds,
                 unsigned lines, size_t k, void *dst, const unsigned kr, const unsigned eb)
{
    const unsigned G = (ls == 1 && ds != 1) || kr >= 16 ? 1 : 16 / kr;  /* blocks per group */
    const size_t block = (size_t)r * kr;        /* elements per depth block */
    const size_t full = k / kr * kr;            /* depths in blocks that are all valid */
    size_t p0 = 0, o = 0;
    for (; full - p0 >= (size_t)G * kr; p0 += (size_t)G * kr, o += G * block) {
        for (unsigned i = 0; i < lines; i++) {
            const int8_t *s = src + (ptrdiff_t)i * ls + (ptrdiff_t)p0 * ds;
            for (unsigned g = 0; g < G; g++)
                for (unsigned q = 0; q < kr; q++)
                    put(dst, o + g * block + (size_t)i * kr + q,
                        s[(ptrdiff_t)(g * kr + q) * ds], eb);
        }
        for (unsigned g = 0; g < G; g++)
            zero(dst, o + g * block + (size_t)lines * kr, o + (g + 1) * block, eb);
    }
    for (; p0 < k; p0 += kr, o += block) {  /* the rest, the last block maybe partial */
        const int8_t *s = src + (ptrdiff_t)p0 * ds;
        for (unsigned i = 0; i < lines; i++)
            for (unsigned q = 0; q < kr; q++)
                put(dst, o + (size_t)i * kr + q,
                    p0 + q < k ? s[(ptrdiff_t)i * ls + (ptrdiff_t)q * ds] : 0, eb);
        zero(dst, o + (size_t)lines * kr, o + block, eb);
    }
    zero(dst, o, kp * r, eb);  /* blocks past k, when kp was padded further */
}

static ALWAYS_INLINE void
pack_template(unsigned r, size_t kp, const int8_t *src, ptrdiff_t ls, ptrdiff_t ds,
              unsigned lines, size_t k, void *dst, const unsigned kr, const unsigned eb,
              const unsigned k_inner)
{
    if (k_inner)
        pack_k_inner(r, kp, src, ls, ds, lines, k, dst, eb);
    else
        pack_interleaved(r, kp, src, ls, ds, lines, k, dst, kr, eb);
}

#define QMM_PACK_INSTANCE(fn, kr, eb, k_inner)                                         \
    static void fn(unsigned r, size_t kp, const int8_t *src, ptrdiff_t ls,             \
                   ptrdiff_t ds, unsigned lines, size_t k, void *dst)                  \
    {                                                                                  \
        if (ds == 1)                                                                   \
            pack_template(r, kp, src, ls, 1, lines, k, dst, kr, eb, k_inner);          \
        else if (ls == 1)                                                              \
            pack_template(r, kp, src, 1, ds, lines, k, dst, kr, eb, k_inner);          \
        else                                                                           \
            pack_template(r, kp, src, ls, ds, lines, k, dst, kr, eb, k_inner);         \
    }

QMM_PACK_INSTANCE(pack_i8_k1, 1, 1, 0)
QMM_PACK_INSTANCE(pack_i8_k4, 4, 1, 0)
QMM_PACK_INSTANCE(pack_i16_k2, 2, 2, 0)
QMM_PACK_INSTANCE(pack_i8_kin16, 16, 1, 1)
QMM_PACK_INSTANCE(pack_i16_kin16, 16, 2, 1)

const qmm_pack_format qmm_pack_formats[QMM_PACK_COUNT] = {
    [QMM_PACK_I8_K1] = {"i8_k1", 1, 1, 64, pack_i8_k1, 0},
    [QMM_PACK_I8_K4] = {"i8_k4", 4, 1, 64, pack_i8_k4, 0},
    [QMM_PACK_I16_K2] = {"i16_k2", 2, 2, 64, pack_i16_k2, 0},
    [QMM_PACK_I8_KIN16] = {"i8_kin16", 16, 1, 64, pack_i8_kin16, 1},
    [QMM_PACK_I16_KIN16] = {"i16_kin16", 16, 2, 64, pack_i16_kin16, 1},
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
