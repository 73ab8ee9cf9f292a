/*
 * The output stage of a product, as the tile seam applies it (compute/tile.h):
 * the zero points' corrections, the bias, and the conversion to C's type,
 * one finished tile at a time while it is in cache.
 *
 * Everything here is in the coordinates of the product the kernels compute,
 * which is the caller's C or its transpose (a single-row product run on a
 * GEMV kernel, a plan whose weights are B): a parameter runs along the job's
 * rows, along its columns, or is one value, and output/describe.c maps the
 * caller's rows and columns onto these when it builds the epilogue.
 */
#ifndef QMM_EPILOGUE_H
#define QMM_EPILOGUE_H

#include <stddef.h>
#include <stdint.h>

#include "qmm/qmm.h"

typedef enum qmm_along {
    QMM_ALONG_NONE,  /* one value: v[0] */
    QMM_ALONG_ROWS,  /* v[i] for row i */
    QMM_ALONG_COLS,  /* v[j] for column j */
} qmm_along;

typedef struct qmm_ivec {
    const int32_t *v;  /* NULL: absent */
    qmm_along along;
} qmm_ivec;

typedef struct qmm_fvec {
    const float *v;    /* NULL: absent */
    qmm_along along;
} qmm_fvec;

/* The largest block (rows x columns) the stage takes at once: a tile, or a
 * run of one row. */
#define QMM_EPILOGUE_MAX_BLOCK 1024

typedef struct qmm_epilogue qmm_epilogue;

/* The stage on the mv x nv block of C at (i, j), mv * nv <= QMM_EPILOGUE_MAX_BLOCK,
 * from its finished int32 sums (element (ii, jj) at acc[ii*acc_rs + jj*acc_cs];
 * acc may be C itself when C is int32). */
typedef void qmm_epilogue_fn(const qmm_epilogue *e, size_t i, size_t j, size_t mv, size_t nv,
                             const int32_t *acc, ptrdiff_t acc_rs, ptrdiff_t acc_cs);

/* The most products of a row value by a column value added to the sums:
 * the two zero-point terms when both zero points are per channel. */
#define QMM_EPILOGUE_TERMS 2

struct qmm_epilogue {
    qmm_epilogue_fn *tile;   /* the instance for this CPU (qmm_epilogue_pick) */
    /* The same stage seen on C^T, or NULL: set where C's columns are apart
     * and its rows adjacent, so that the stage can run along C's memory. */
    const qmm_epilogue *twin;
    qmm_type type;           /* of C */
    void *c;                 /* element (i, j) at c[i*rs + j*cs], in elements of type */
    ptrdiff_t rs, cs;
    /* int32, wrapping: acc + row_add[i] + col_add[j] + sum_t term[t][0](i,j) * term[t][1](i,j),
     * row_add and col_add NULL when absent (the int32 bias and the zero points'
     * corrections, gathered by compute/quantized.c) */
    const int32_t *row_add, *col_add;
    unsigned terms;
    qmm_ivec term[QMM_EPILOGUE_TERMS][2];
    /* QMM_TYPE_F32: y = (float)acc; y *= scale[0]; y *= scale[1]; y += fbias; clamp */
    qmm_fvec scale[2];
    qmm_fvec fbias;
    int fclamp;
    float fmin, fmax;
    /* QMM_TYPE_I8 with modulus > 0 (odd, at most 255; not a caller's stage:
     * the residues of the Chinese-remainder GEMMs, float_gemm/crt.h): C =
     * the int32 sum's symmetric residue modulo `modulus`, in
     * [-(modulus - 1) / 2, (modulus - 1) / 2], in place of a rounding rule;
     * the int32 additions are not taken */
    int32_t modulus;
    /* QMM_TYPE_I8, QMM_TYPE_U8 */
    qmm_rounding rounding;
    qmm_ivec multiplier, shift;  /* QMM_ROUND_TFLITE, QMM_ROUND_SINGLE */
    qmm_fvec qscale;             /* QMM_ROUND_FLOAT */
    int32_t zero_point, qmin, qmax;
};

/* A block of C as an instance's own code for a stage takes it
 * (output/epilogue_tile.h, QMM_EPILOGUE_*_BLOCK), as ruy's kernels take their
 * KernelParams: mv rows of nv finished sums, the stage's parameters, each the
 * same on every row (column jj's at [jj]), and where C's elements go. The
 * template fills one per block by designated initializers, the fields its
 * stage does not read left zero, and hands its address to that code. */
typedef struct qmm_epilogue_block_params {
    /* row ii's sums at sums + ii * sums_rs, columns adjacent, with rows[ii]
     * and cols[jj] still to be added, wrapping (NULL: none) */
    const int32_t *sums;
    ptrdiff_t sums_rs;
    const uint32_t *rows, *cols;
    /* int8 or uint8 C: clamp(rule(x), lo, hi) + zero_point as a byte, lo and
     * hi the type's bounds less the zero point; the rule TFLite's (multiplier,
     * shift) or ONNX's float rule (qscale) */
    const int32_t *multiplier, *shift;
    const float *qscale;
    int32_t lo, hi, zero_point;
    /* float C: ((float)x * scale[0][jj]) [* scale[1][jj] when not NULL] +
     * fbias[jj], clamped to [fmin, fmax] when fclamp */
    const float *scale[2];
    const float *fbias;
    int fclamp;
    float fmin, fmax;
    /* the residue stage: x's symmetric residue modulo the odd modulus, as a
     * byte (rows and cols are not read) */
    int32_t modulus;
    /* where the block's mv x nv elements go (C's, or a row the template
     * then scatters into C): row ii's at out + ii * out_rs elements of C's
     * type, adjacent */
    void *out;
    ptrdiff_t out_rs;
    size_t mv, nv;
} qmm_epilogue_block_params;

/* How an instance defines its code for a stage: static
 * QMM_EPILOGUE_BLOCK_INLINE void name(const qmm_epilogue_block_params *),
 * inlined where the template calls it, so that the struct is a record of the
 * source alone (its fields stay in registers, none is stored) and the
 * template's copies for a width known at compile time specialize that code
 * too. */
#define QMM_EPILOGUE_BLOCK_INLINE inline __attribute__((always_inline))

/* Bytes of one element of a type; 0 for an unknown type. */
static inline size_t qmm_type_bytes(qmm_type t)
{
    switch (t) {
    case QMM_TYPE_I8:
    case QMM_TYPE_U8:
        return 1;
    case QMM_TYPE_I32:
    case QMM_TYPE_F32:
        return 4;
    }
    return 0;
}

/* Sets e->twin to t, e seen on C^T, when C's rows are adjacent and its
 * columns apart (a transposed job's C, or a column-major one); t must live
 * as long as e. */
void qmm_epilogue_pair_twin(qmm_epilogue *e, qmm_epilogue *t);

/* A block's place on the epilogue that runs it: e's twin, the block and its
 * coordinates transposed, when there is one and the block is taller than
 * wide (the stage's loops run along a row: then the longer side, and C's
 * memory); else e as it is. */
typedef struct qmm_epilogue_block {
    const qmm_epilogue *e;
    size_t i, j, mv, nv;
    int swapped;
} qmm_epilogue_block;

static inline qmm_epilogue_block qmm_epilogue_block_of(const qmm_epilogue *e, size_t i, size_t j,
                                                       size_t mv, size_t nv)
{
    if (e->twin != NULL && mv > nv)
        return (qmm_epilogue_block){e->twin, j, i, nv, mv, 1};
    return (qmm_epilogue_block){e, i, j, mv, nv, 0};
}

/* The stage on a block of C (qmm_epilogue_fn's arguments), on the epilogue
 * qmm_epilogue_block_of picks. */
static inline void qmm_epilogue_tile(const qmm_epilogue *e, size_t i, size_t j, size_t mv,
                                     size_t nv, const int32_t *acc, ptrdiff_t acc_rs,
                                     ptrdiff_t acc_cs)
{
    const qmm_epilogue_block b = qmm_epilogue_block_of(e, i, j, mv, nv);
    b.e->tile(b.e, b.i, b.j, b.mv, b.nv, acc, b.swapped ? acc_cs : acc_rs,
              b.swapped ? acc_rs : acc_cs);
}

/* Asks for the lines of C's mv x nv block at (i, j) to be brought into
 * the cache for writing, so that they arrive while the kernel computes the
 * tile rather than stall the stage's stores. */
static inline void qmm_epilogue_prefetch(const qmm_epilogue *e, size_t i, size_t j, size_t mv,
                                         size_t nv)
{
    const qmm_epilogue_block b = qmm_epilogue_block_of(e, i, j, mv, nv);
    const size_t bytes = qmm_type_bytes(b.e->type);
    if (b.e->cs != 1)
        return;
    for (size_t ii = 0; ii < b.mv; ii++) {
        const char *row = (const char *)b.e->c +
                          ((ptrdiff_t)(b.i + ii) * b.e->rs + (ptrdiff_t)b.j) * (ptrdiff_t)bytes;
        __builtin_prefetch(row, 1);
        __builtin_prefetch(row + b.nv * bytes - 1, 1);
    }
}

/* The instance of the stage for this CPU: every instance gives the same bits. */
qmm_epilogue_fn *qmm_epilogue_pick(void);

/* The instances (output/epilogue_tile.h). */
qmm_epilogue_fn qmm_epilogue_tile_generic;
#if defined(__aarch64__)
qmm_epilogue_fn qmm_epilogue_tile_neon;
#endif
#if defined(__x86_64__)
qmm_epilogue_fn qmm_epilogue_tile_avx2;
qmm_epilogue_fn qmm_epilogue_tile_avx512;
#endif

/* Whether C is plain int32 sums, nothing added: the kernels then store their
 * tiles into C without a stage. */
int qmm_epilogue_is_plain(const qmm_epilogue *e);

#endif
