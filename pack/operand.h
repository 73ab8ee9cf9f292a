/*
 * An operand made ready for int8 kernels: uint8 moved to int8 by flipping
 * the top bit (v ^ 0x80 = v - 128, the zero point moved with it), and the
 * line sums that turn zero points into corrections applied once per line
 * instead of subtractions in the hot loop. One pass over the source does both.
 */
#ifndef QMM_PACK_OPERAND_H
#define QMM_PACK_OPERAND_H

#include <stddef.h>
#include <stdint.h>

/* Where a prepared copy of a lines x depth operand goes: element (i, p) at
 * copy[i*ls + p*ds], in the orientation of the source (lines contiguous when
 * the source's line stride is 1, else depths). */
typedef struct qmm_operand_copy {
    int8_t *data;
    ptrdiff_t ls, ds;
} qmm_operand_copy;

/* The copy at data of a source whose line stride is ls. */
qmm_operand_copy qmm_operand_copy_layout(int8_t *data, size_t lines, size_t depth,
                                         ptrdiff_t ls);

/* Reads the lines x depth operand whose element (i, p) is src[i*ls + p*ds],
 * each byte flipped by `flip` (0x80 for uint8, 0 for int8) and read as int8;
 * writes them to copy (when not NULL) and their sums over depth, modulo
 * 2^32, to sums[i] (when not NULL). */
void qmm_operand_prepare(const uint8_t *src, ptrdiff_t ls, ptrdiff_t ds, size_t lines,
                         size_t depth, uint8_t flip, const qmm_operand_copy *copy,
                         int32_t *sums);

#endif
