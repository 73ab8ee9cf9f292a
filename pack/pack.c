#include "pack.h"

#include <string.h>

#include "bulk.h"

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

/* Interleaved, depths contiguous in the source (ds == 1, A row-major): DG
 * depths (DG / kr whole blocks) of L lines, the lines starting at output
 * element o of the first block. The L x DG source block is copied, one memcpy
 * per line, into a local block; its transpose by units of kr depths, one row
 * of L*kr elements per depth block, is built in a second local block (where
 * the constant bounds let the compiler vectorize the shuffles and the int16
 * widening); each row then goes to the panel as one memcpy. */
enum { DG = 16 };  /* depths per group of blocks; a multiple of every kr */

static ALWAYS_INLINE void
rows_block(const int8_t *s, ptrdiff_t ls, void *dst, size_t o, size_t block, const unsigned L,
           const unsigned kr, const unsigned eb)
{
    int8_t t[16][DG];
    int16_t u[DG * 16];  /* DG/kr rows of L*kr elements (int8 or int16) */
    for (unsigned i = 0; i < L; i++)
        memcpy(t[i], s + (ptrdiff_t)i * ls, DG);
    for (unsigned b = 0; b < DG / kr; b++)
        for (unsigned i = 0; i < L; i++)
            for (unsigned q = 0; q < kr; q++)
                put(u, (b * L + i) * kr + q, t[i][b * kr + q], eb);
    for (unsigned b = 0; b < DG / kr; b++)
        memcpy((char *)dst + (o + b * block) * eb, (char *)u + b * L * kr * eb, L * kr * eb);
}

/* Interleaved, depths contiguous in the source, kr > 1: DG depths of one line,
 * copied to a local run (widened there to int16 by a vectorized loop), whose
 * DG/kr units of kr elements go to the DG/kr blocks, one memcpy each. */
static ALWAYS_INLINE void
line_units(const int8_t *s, void *dst, size_t o, size_t block, const unsigned kr,
           const unsigned eb)
{
    int8_t t[DG];
    int16_t w[DG];
    memcpy(t, s, DG);
    for (unsigned p = 0; p < DG; p++)
        put(w, p, t[p], eb);
    for (unsigned g = 0; g < DG / kr; g++)
        memcpy((char *)dst + (o + g * block) * eb, (char *)w + g * kr * eb, kr * eb);
}

/* Lines [0, lines) by chunks of 16, then at most one chunk each of 8, 4, 2, 1
 * lines, each with its constant count: the block functions above. */
#define BY_CHUNKS(lines, CALL)                                                         \
    do {                                                                               \
        unsigned i0_ = 0;                                                              \
        for (; (lines) - i0_ >= 16; i0_ += 16)                                         \
            CALL(i0_, 16);                                                             \
        if ((lines) - i0_ >= 8) {                                                      \
            CALL(i0_, 8);                                                              \
            i0_ += 8;                                                                  \
        }                                                                              \
        if ((lines) - i0_ >= 4) {                                                      \
            CALL(i0_, 4);                                                              \
            i0_ += 4;                                                                  \
        }                                                                              \
        if ((lines) - i0_ >= 2) {                                                      \
            CALL(i0_, 2);                                                              \
            i0_ += 2;                                                                  \
        }                                                                              \
        if ((lines) - i0_ >= 1)                                                        \
            CALL(i0_, 1);                                                              \
    } while (0)

/* Interleaved, from depth p0 (at element o of the panel) on: the last, partial
 * block of depths with tests, then the zero blocks of the padding past k. */
static ALWAYS_INLINE void
interleaved_tail(unsigned r, size_t kp, const int8_t *src, ptrdiff_t ls, ptrdiff_t ds,
                 unsigned lines, size_t k, void *dst, size_t p0, size_t o, const unsigned kr,
                 const unsigned eb)
{
    const size_t block = (size_t)r * kr;
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

/* Interleaved: blocks of kr depths, line-major inside each block. The two
 * common source patterns have their own loops: depths contiguous (A
 * row-major) through local blocks (rows_block, line_units), lines contiguous
 * (B row-major) a block of kr depths at a time, whose kr source runs are
 * interleaved into L*kr contiguous elements of the panel; other strides copy full blocks G at a time (G*kr >= 16 depths) line by
 * line, so that each line reads G*kr depths in a constant-length loop. The
 * last, partial block and any tail of depths take a loop with tests. */
static ALWAYS_INLINE void
pack_interleaved(unsigned r, size_t kp, const int8_t *src, ptrdiff_t ls, ptrdiff_t ds,
                 unsigned lines, size_t k, void *dst, const unsigned kr, const unsigned eb)
{
    const size_t block = (size_t)r * kr;        /* elements per depth block */
    const size_t full = k / kr * kr;            /* depths in blocks that are all valid */
    size_t p0 = 0, o = 0;
    if (r == 1 && lines == 1 && ds == 1 && eb == 1) {
        /* One line (a GEMV's vector): its blocks follow each other, so the
         * panel is the line itself, then zeros. */
        memcpy(dst, src, k);
        zero(dst, k, kp, eb);
        return;
    }
    if (ds == 1 && kr == 1) {
        for (; full - p0 >= DG; p0 += DG, o += DG / kr * block) {
            const int8_t *s = src + (ptrdiff_t)p0;
#define ROWS(i0, L) rows_block(s + (ptrdiff_t)(i0) * ls, ls, dst, o + (size_t)(i0) * kr, block, L, kr, eb)
            BY_CHUNKS(lines, ROWS);
#undef ROWS
            for (unsigned g = 0; g < DG / kr; g++)
                zero(dst, o + g * block + (size_t)lines * kr, o + (g + 1) * block, eb);
        }
    } else if (ds == 1) {
        for (; full - p0 >= DG; p0 += DG, o += DG / kr * block) {
            for (unsigned i = 0; i < lines; i++)
                line_units(src + (ptrdiff_t)i * ls + (ptrdiff_t)p0, dst, o + (size_t)i * kr, block, kr, eb);
            for (unsigned g = 0; g < DG / kr; g++)
                zero(dst, o + g * block + (size_t)lines * kr, o + (g + 1) * block, eb);
        }
    } else if (ls == 1) {
        for (; p0 < full; p0 += kr, o += block) {
            const int8_t *s = src + (ptrdiff_t)p0 * ds;
            for (unsigned i = 0; i < lines; i++)
                for (unsigned q = 0; q < kr; q++)
                    put(dst, o + (size_t)i * kr + q, s[(ptrdiff_t)i + (ptrdiff_t)q * ds], eb);
            zero(dst, o + (size_t)lines * kr, o + block, eb);
        }
    } else {
        const unsigned G = kr >= 16 ? 1 : 16 / kr;  /* blocks per group */
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
    }
    interleaved_tail(r, kp, src, ls, ds, lines, k, dst, p0, o, kr, eb);
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
QMM_PACK_INSTANCE(pack_i8_k8, 8, 1, 0)
QMM_PACK_INSTANCE(pack_i16_k2, 2, 2, 0)
QMM_PACK_INSTANCE(pack_i8_kin16, 16, 1, 1)
QMM_PACK_INSTANCE(pack_i16_kin16, 16, 2, 1)
QMM_PACK_INSTANCE(pack_i8_kin64, 64, 1, 1)


/* Several consecutive panels of an interleaved format from a source whose
 * lines are contiguous (ls == 1: B row-major, or A column-major): each block
 * of kr depths is packed into every panel before the next, so the source is
 * read once, row after row, instead of once per panel with a stride that
 * may be a power of two. */
static ALWAYS_INLINE void
panels_interleaved_ls1(unsigned r, size_t kp, const int8_t *src, ptrdiff_t ds, size_t lines,
                       size_t k, unsigned char *dst, size_t panel_bytes, const unsigned kr,
                       const unsigned eb)
{
    const size_t block = (size_t)r * kr, full = k / kr * kr;
    const size_t np = lines / r + (lines % r != 0);
    size_t p0 = 0, o = 0;
    for (; p0 < full; p0 += kr, o += block) {
        const int8_t *s = src + (ptrdiff_t)p0 * ds;
        for (size_t j = 0; j < np; j++, s += r) {
            unsigned nl = lines - j * r < r ? (unsigned)(lines - j * r) : r;
            void *d = dst + j * panel_bytes;
            for (unsigned i = 0; i < nl; i++)
                for (unsigned q = 0; q < kr; q++)
                    put(d, o + (size_t)i * kr + q, s[(ptrdiff_t)i + (ptrdiff_t)q * ds], eb);
            zero(d, o + (size_t)nl * kr, o + block, eb);
        }
    }
    for (size_t j = 0; j < np; j++) {
        unsigned nl = lines - j * r < r ? (unsigned)(lines - j * r) : r;
        interleaved_tail(r, kp, src + j * r, 1, ds, nl, k, dst + j * panel_bytes, p0, o, kr,
                         eb);
    }
}

typedef void panels_fn(unsigned r, size_t kp, const int8_t *src, ptrdiff_t ds, size_t lines,
                       size_t k, unsigned char *dst, size_t panel_bytes);

#define QMM_PANELS_INSTANCE(fn, kr, eb)                                                \
    static void fn(unsigned r, size_t kp, const int8_t *src, ptrdiff_t ds, size_t lines, \
                   size_t k, unsigned char *dst, size_t panel_bytes)                   \
    {                                                                                  \
        panels_interleaved_ls1(r, kp, src, ds, lines, k, dst, panel_bytes, kr, eb);    \
    }

QMM_PANELS_INSTANCE(panels_i8_k1, 1, 1)
QMM_PANELS_INSTANCE(panels_i8_k4, 4, 1)
QMM_PANELS_INSTANCE(panels_i8_k8, 8, 1)
QMM_PANELS_INSTANCE(panels_i16_k2, 2, 2)

/* Per format: its multi-panel packer for line-contiguous sources, if any. */
static panels_fn *const panels_ls1[QMM_PACK_COUNT] = {
    [QMM_PACK_I8_K1] = panels_i8_k1,
    [QMM_PACK_I8_K4] = panels_i8_k4,
    [QMM_PACK_I8_K4_SUMS] = panels_i8_k4,
    [QMM_PACK_I8_K8] = panels_i8_k8,
    [QMM_PACK_I16_K2] = panels_i16_k2,
};

const qmm_pack_format qmm_pack_formats[QMM_PACK_COUNT] = {
    [QMM_PACK_I8_K1] = {"i8_k1", 1, 1, 64, pack_i8_k1, 0, 0},
    [QMM_PACK_I8_K4] = {"i8_k4", 4, 1, 64, pack_i8_k4, 0, 0},
    [QMM_PACK_I8_K4_SUMS] = {"i8_k4_sums", 4, 1, 64, pack_i8_k4, 0, 1},
    [QMM_PACK_I8_K8] = {"i8_k8", 8, 1, 64, pack_i8_k8, 0, 0},
    [QMM_PACK_I16_K2] = {"i16_k2", 2, 2, 64, pack_i16_k2, 0, 0},
    [QMM_PACK_I8_KIN16] = {"i8_kin16", 16, 1, 64, pack_i8_kin16, 1, 0},
    [QMM_PACK_I16_KIN16] = {"i16_kin16", 16, 2, 64, pack_i16_kin16, 1, 0},
    [QMM_PACK_I8_KIN64] = {"i8_kin64", 64, 1, 64, pack_i8_kin64, 1, 0},
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
    size_t sums = f->line_sums ? (size_t)r * sizeof(int32_t) : 0;
    size_t mask = (size_t)f->align - 1;
    if (bytes > SIZE_MAX - mask - sums)
        return 0;
    return (bytes + sums + mask) & ~mask;
}

/* The line sums of a packed panel, from its elements (int8 or int16),
 * modulo 2^32 (uint32_t: a depth over 2^24 may leave int32; signed overflow
 * would be undefined). An interleaved panel of up to SUM_LANES elements per
 * depth block is summed per element over the blocks (a loop the compiler
 * vectorizes), then each line's kr partial sums are added; other panels
 * line by line. */
enum { SUM_LANES = 1024 };

/* Element e of a panel of int8 or (wide) int16 elements. */
static inline __attribute__((always_inline)) int32_t element(const unsigned char *x, size_t e,
                                                             const int wide)
{
    return wide ? ((const int16_t *)(const void *)x)[e] : ((const int8_t *)x)[e];
}

/* Inlined with a constant `wide`, one loop per element width. */
static inline __attribute__((always_inline)) void
sum_elements(const qmm_pack_format *f, unsigned r, size_t kp, const unsigned char *x,
             int32_t *sums, const int wide)
{
    const size_t width = (size_t)r * f->kr;  /* elements per depth block */
    if (f->k_inner || width > SUM_LANES) {
        for (unsigned i = 0; i < r; i++) {
            uint32_t s = 0;
            for (size_t p = 0; p < kp; p++)
                s += (uint32_t)element(x, qmm_pack_index(f, r, kp, i, p), wide);
            sums[i] = (int32_t)s;
        }
        return;
    }
    uint32_t acc[SUM_LANES] = {0};
    for (size_t b = 0; b < kp / f->kr; b++)
        for (size_t e = 0; e < width; e++)
            acc[e] += (uint32_t)element(x, b * width + e, wide);
    for (unsigned i = 0; i < r; i++) {
        uint32_t s = 0;
        for (unsigned q = 0; q < f->kr; q++)
            s += acc[i * f->kr + q];
        sums[i] = (int32_t)s;
    }
}

/* Where a panel's own line sums go, after its elements. */
static int32_t *own_sums(unsigned r, size_t kp, unsigned char *panel)
{
    return (int32_t *)(void *)(panel + (size_t)r * kp);
}

static void line_sums(const qmm_pack_format *f, unsigned r, size_t kp,
                      const unsigned char *panel, int32_t *sums)
{
    qmm_pack_sums_fn *fast = qmm_pack_bulk_sums(f, r);
    if (fast != NULL)
        fast(panel, kp, sums);
    else if (f->elem_bytes == 2)
        sum_elements(f, r, kp, panel, sums, 1);
    else
        sum_elements(f, r, kp, panel, sums, 0);
}

void qmm_pack_panel(const qmm_pack_format *f, unsigned r, size_t kp, const int8_t *src,
                    ptrdiff_t line_stride, ptrdiff_t depth_stride, unsigned lines, size_t k,
                    void *dst)
{
    f->pack(r, kp, src, line_stride, depth_stride, lines, k, dst);
    if (f->line_sums)
        line_sums(f, r, kp, dst, own_sums(r, kp, dst));
}

void qmm_pack_panel_sums(const qmm_pack_format *f, unsigned r, size_t kp, const void *panel,
                         int32_t *sums)
{
    const unsigned char *p = panel;
    if (f->line_sums)
        memcpy(sums, p + (size_t)r * kp, r * sizeof *sums);
    else
        line_sums(f, r, kp, p, sums);
}

/* Lines per call of a K-inner packer when consecutive panels are merged into
 * one: enough for the transpose of a line-contiguous source to read whole
 * cache lines (16 panels of 4 lines were measured 2-3x faster than one). */
enum { MERGED_LINES = 128 };

static void pack_panels(const qmm_pack_format *f, unsigned r, size_t kp, const int8_t *src,
                        ptrdiff_t line_stride, ptrdiff_t depth_stride, size_t lines, size_t k,
                        void *dst)
{
    unsigned char *d = dst;
    const size_t panel = qmm_pack_panel_bytes(f, r, kp);
    size_t done = qmm_pack_bulk(f, r, kp, src, line_stride, depth_stride, lines, k, d, panel);
    if (done == lines)
        return;
    src += (ptrdiff_t)done * line_stride;
    lines -= done;
    d += done / r * panel;
    panels_fn *multi = panels_ls1[f - qmm_pack_formats];
    if (multi != NULL && line_stride == 1 && depth_stride != 1) {
        multi(r, kp, src, depth_stride, lines, k, d, panel);
        return;
    }
    /* K-inner panels without alignment padding are one K-inner panel of
     * their lines together: several go in one call. */
    size_t step = r;
    if (f->k_inner && panel == (size_t)r * kp * f->elem_bytes && r < MERGED_LINES)
        step = MERGED_LINES / r * r;
    for (size_t l = 0; l < lines; l += step, d += step / r * panel) {
        size_t left = lines - l;
        unsigned now = left < step ? (unsigned)left : (unsigned)step;
        unsigned rr = left < step ? (unsigned)((left + r - 1) / r * r) : (unsigned)step;
        f->pack(rr, kp, src + (ptrdiff_t)l * line_stride, line_stride, depth_stride, now, k,
                d);
    }
}

void qmm_pack_panels(const qmm_pack_format *f, unsigned r, size_t kp, const int8_t *src,
                     ptrdiff_t line_stride, ptrdiff_t depth_stride, size_t lines, size_t k,
                     void *dst)
{
    pack_panels(f, r, kp, src, line_stride, depth_stride, lines, k, dst);
    if (!f->line_sums)
        return;
    const size_t panel = qmm_pack_panel_bytes(f, r, kp);
    for (size_t j = 0; j < lines; j += r) {
        unsigned char *d = (unsigned char *)dst + j / r * panel;
        line_sums(f, r, kp, d, own_sums(r, kp, d));
    }
}
