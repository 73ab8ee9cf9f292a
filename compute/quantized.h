/*
 * Quantized products: what qmm_gemm and qmm_plan_run_gemm share. Each operand
 * side is made ready for the int8 kernels (pack/operand.h: uint8 flipped to
 * int8, its lines' sums where the other side's zero point needs them), the
 * zero points become corrections in the epilogue (output/epilogue.h), and the
 * product runs as one job.
 *
 * A uint8 operand on the job's A side of a kernel that has a uint8-A twin
 * (kernels/kernel.h) is read as it is: that twin runs, and nothing is copied.
 *
 * With za' and zb' the zero points moved with the data (uint8 flipped: less
 * 128; read as is: not moved) and
 * ra(i), cb(j) the sums over depth of A's rows and B's columns as the
 * kernels read them, S = sum_p A'(i,p) B'(p,j), and all of it modulo 2^32:
 *
 *   acc(i,j) = S - zb'(j) * (ra(i) - k * za'(i)) - za'(i) * cb(j)
 *
 * Each of the two corrections is one value per row (or per column) when
 * the other factor's zero point is one value, else a product of a row value
 * and a column value (an epilogue term).
 */
#ifndef QMM_QUANTIZED_H
#define QMM_QUANTIZED_H

#include <stddef.h>
#include <stdint.h>

#include "job.h"
#include "qmm/qmm.h"

/* One operand as the product reads it, in the caller's coordinates. */
typedef struct qmm_side {
    const int8_t *data;         /* int8 (a prepared copy for uint8, or the uint8 read as is);
                                 * NULL: a plan's packed A */
    ptrdiff_t rs, cs;
    int32_t neg_zp;             /* -zp', the moved zero point negated, when one value */
    const int32_t *neg_zps;     /* -zp' per line (A's rows, B's columns), or NULL */
    int has_zp;                 /* some zp' is not zero */
    const int32_t *sums;        /* the lines' sums over depth, when the other side has_zp */
} qmm_side;

/* The zero points of operand x (checked by qmm_operand_check), which has
 * `lines` lines (A: m rows, B: n columns); neg_zps holds lines int32 when
 * the zero point is per channel. as_is: a uint8 x is read as uint8 (a
 * twin), not flipped. Data and sums are not set. */
qmm_side qmm_side_zero_points(const qmm_operand *x, size_t lines, int32_t *neg_zps,
                              int as_is);

/* Makes x's data ready, one pass over it: the data as the kernel reads it
 * (x's own, or for uint8 not read as_is its flipped copy into copy, lines * k
 * bytes) and, when want_sums, the lines' sums of those values into sums
 * (lines int32). is_b: x is B, whose lines are columns. */
void qmm_side_data(qmm_side *side, const qmm_operand *x, int is_b, size_t lines, size_t k,
                   int as_is, int want_sums, int32_t *sums, int8_t *copy);

/* Runs d's product on the job `base` (its kernel, and its packed A when a
 * plan's) with the sides a and b (caller coordinates; prepare_a / prepare_b:
 * that side is d's operand, made ready here, else it is a plan's weights,
 * complete), transposed when the job computes C^T = B^T A^T. d's arguments
 * must have been checked. */
qmm_status qmm_quantized_run(const qmm_gemm_desc *d, qmm_job *base, int transposed, qmm_side a,
                             int prepare_a, qmm_side b, int prepare_b);

#endif
