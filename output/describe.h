/*
 * From the caller's description of a product's output (qmm_output, in
 * qmm.h) to the epilogue the tile seam applies: the rules of its fields
 * checked, and its parameters laid along the job's rows and columns.
 */
#ifndef QMM_DESCRIBE_H
#define QMM_DESCRIBE_H

#include <stddef.h>

#include "epilogue.h"
#include "qmm/qmm.h"

/* QMM_OK when o's stage follows the header's rules for an m x n C (its
 * pointer and strides are the argument checks' business); otherwise
 * QMM_ERR_INVALID_ARG, the broken rule said under QMM_VERBOSE. */
qmm_status qmm_output_check(const qmm_output *o, size_t m, size_t n);

/* QMM_OK when operand x (name "A" or "B") has a known input type and a zero
 * point of a kind it may have (per: QMM_PER_ROW for A, QMM_PER_COL for B)
 * whose values (count of them when per channel) are in its type's range. */
qmm_status qmm_operand_check(const qmm_operand *x, const char *name, qmm_per per,
                             size_t count);

/* The epilogue of o's stage for the job that computes C (transposed: C^T),
 * but for the int32 additions (o's bias and the zero points' corrections),
 * which compute/quantized.c gathers. o must have passed qmm_output_check and
 * must outlive the epilogue. */
void qmm_epilogue_describe(qmm_epilogue *e, const qmm_output *o, int transposed);

/* Where a parameter of the caller's rows (or columns, or one value) lies in
 * the job's coordinates. */
qmm_along qmm_along_of(qmm_per per, int transposed);

#endif
