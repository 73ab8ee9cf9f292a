/*
 * Packing formats: how a panel of r lines (rows of A, or columns of B) is laid
 * out for a microkernel, and the routine that writes one panel.
 *
 * Every format pads the depth k up to kp, a multiple of its kr, and has one
 * of two layouts (qmm_pack_index below computes either):
 *
 * Interleaved (k_inner == 0): element (line i, depth p) is at index
 *
 *     (p / kr) * r * kr  +  i * kr  +  (p % kr)
 *
 * so that for each block of kr depths, the kr values of line 0 come first,
 * then those of line 1, and so on. kr == 1 is the classic K-outer layout
 * (SMLAL, broadcast kernels); kr == 4 with int8 elements is the SDOT layout;
 * kr == 8 with int8 elements is the SMMLA layout, where the 16 bytes of lines
 * 2j and 2j+1 in a block are one 2x8 operand (line pairs K8-interleaved);
 * kr == 2 with int16 elements feeds vpmaddwd a pair per 32-bit lane.
 *
 * K-inner (k_inner == 1): element (line i, depth p) is at index
 *
 *     i * kp  +  p
 *
 * so that each line's kp depths are contiguous, one line after the other: the
 * layout of dot-product kernels, whose inner loop is a reduction over depth
 * that the compiler vectorizes (int16 elements become pmaddwd on SSE2).
 *
 * Lines past the valid ones and depths past k are zero, so a kernel always
 * computes a full tile over kp without edge logic on its inputs.
 *
 * Line sums (line_sums == 1, int8 formats): the r*kp elements are followed by
 * r int32 values, the sum over depth of each line's packed values (padding
 * lines 0), for kernels that correct for an offset added to the other
 * operand (the VNNI matrix kernel's +128 on A): computed once per packing,
 * not per tile.
 */
#ifndef QMM_PACK_H
#define QMM_PACK_H

#include <stddef.h>
#include <stdint.h>

typedef void qmm_pack_fn(unsigned r, size_t kp, const int8_t *src,
                         ptrdiff_t line_stride, ptrdiff_t depth_stride,
                         unsigned lines, size_t k, void *dst);

/* The largest panel alignment any format may declare: the driver's
 * workspaces are aligned for it. */
#define QMM_PACK_MAX_ALIGN 64

typedef struct qmm_pack_format {
    const char *name;
    unsigned kr;          /* interleaved: depths stored together per line;
                             both layouts: kp is a multiple of kr */
    unsigned elem_bytes;  /* 1: int8 as is; 2: sign-extended to int16 */
    unsigned align;       /* byte alignment of each panel packed; a power of two
                             at most QMM_PACK_MAX_ALIGN
                             (a panel read in place, compute/loops.h, has none) */
    qmm_pack_fn *pack;    /* writes one panel in this format */
    unsigned k_inner;     /* 0: interleaved layout; 1: K-inner layout (see above) */
    unsigned line_sums;   /* 1: r int32 line sums follow the elements (see above) */
} qmm_pack_format;

/* The format table; kernels point at its entries. */
enum qmm_pack_id {
    QMM_PACK_I8_K1,   /* int8, K-outer */
    QMM_PACK_I8_K4,   /* int8, 4 depths interleaved (SDOT) */
    QMM_PACK_I8_K4_SUMS, /* the same, with line sums (VNNI B) */
    QMM_PACK_I8_K8,   /* int8, 8 depths interleaved: line pairs are 2x8 blocks (SMMLA) */
    QMM_PACK_I16_K2,  /* int16, depth pairs (vpmaddwd) */
    QMM_PACK_I8_KIN16,   /* int8, K-inner, kp a multiple of 16 */
    QMM_PACK_I16_KIN16,  /* int16, K-inner, kp a multiple of 16 */
    QMM_PACK_I8_KIN64,   /* int8, K-inner, kp a multiple of 64 (one zmm per line) */
    QMM_PACK_COUNT
};
extern const qmm_pack_format qmm_pack_formats[QMM_PACK_COUNT];

/* Index, in elements, of (line i, depth p) in a panel of r lines at padded
 * depth kp: the layout formulas above. */
static inline size_t qmm_pack_index(const qmm_pack_format *f, unsigned r, size_t kp,
                                    unsigned i, size_t p)
{
    if (f->k_inner)
        return (size_t)i * kp + p;
    return p / f->kr * r * f->kr + (size_t)i * f->kr + p % f->kr;
}

/* Depth k rounded up to the format's multiple; 0 on overflow (only when k > 0). */
size_t qmm_pack_padded_depth(const qmm_pack_format *f, size_t k);

/* Bytes of one panel of r lines at padded depth kp (with its line sums),
 * rounded up to the format's alignment so that consecutive panels stay
 * aligned; 0 on overflow. */
size_t qmm_pack_panel_bytes(const qmm_pack_format *f, unsigned r, size_t kp);

/* Pack lines [0, lines) of a source whose element (line i, depth p) is
 * src[i*line_stride + p*depth_stride], for depths [0, k), into one panel of
 * r lines at padded depth kp (a multiple of f->kr, >= k), with its line sums
 * if the format has them. lines <= r.
 * For A the lines are rows (line_stride = rsa, depth_stride = csa); for B
 * they are columns (line_stride = csb, depth_stride = rsb). */
void qmm_pack_panel(const qmm_pack_format *f, unsigned r, size_t kp, const int8_t *src,
                    ptrdiff_t line_stride, ptrdiff_t depth_stride, unsigned lines, size_t k,
                    void *dst);

/* The sums over depth of the r lines of a packed panel of f at padded depth
 * kp, modulo 2^32, into sums: the panel's own when f has line sums, else
 * computed from its elements (padding lines and depths add 0). */
void qmm_pack_panel_sums(const qmm_pack_format *f, unsigned r, size_t kp, const void *panel,
                         int32_t *sums);

/* Pack lines [0, lines) of the same source into ceil(lines / r) consecutive
 * panels of r lines, panel j (lines [j*r, j*r + r)) at dst + j *
 * qmm_pack_panel_bytes(f, r, kp): the same bytes as qmm_pack_panel on each
 * panel, the last one partial, but with loops over the whole set where that
 * reads the source better (lines contiguous in the source; K-inner panels
 * without padding between them), and through an ISA bulk packer where the
 * CPU has one for this format, width and source orientation (pack/bulk.h). */
void qmm_pack_panels(const qmm_pack_format *f, unsigned r, size_t kp, const int8_t *src,
                     ptrdiff_t line_stride, ptrdiff_t depth_stride, size_t lines, size_t k,
                     void *dst);

#endif
