/*
 * What qmm_sgemm_i8 and qmm_dgemm_i8 share: their argument rules, their
 * buffers, and the exact integer sums of int8 products of any depth.
 */
#ifndef QMM_FLOAT_GEMM_H
#define QMM_FLOAT_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "qmm/qmm.h"

/* The rules of both calls for row-major A, B and C of elem-byte values:
 * none for m == 0 or n == 0 (QMM_OK); else leading dimensions, the
 * scaling (per), operands and overlaps. */
qmm_status qmm_float_gemm_check(size_t m, size_t n, size_t k, const void *a, size_t lda,
                                const void *b, size_t ldb, const void *c, size_t ldc,
                                size_t elem, qmm_per per);

/* Zeros into C, m x n of elem-byte values (float or double). */
void qmm_float_gemm_zero(size_t m, size_t n, void *c, size_t ldc, size_t elem);

/* The calling thread's float-GEMM workspace (compute/workspace.h, kept
 * from one call to the next) cut into parts: sizes[i] bytes each (64-byte
 * aligned); its size in *got, for qmm_float_gemm_buffers_return. NULL (said
 * under QMM_VERBOSE) when it cannot be had or the total overflows. */
void *qmm_float_gemm_buffers(size_t count, const size_t *sizes, void **parts, size_t *got);
void qmm_float_gemm_buffers_return(void *mem, size_t got);

/* S = A.B exactly, for int8 A (m x depth, row stride lda, values in
 * [-127, 127]) and B (depth x n, row stride ldb), dense m x n: in s32 when
 * depth <= QMM_EXACT_DEPTH, else in s64 (s32 then holds a chunk's sums),
 * summed over chunks of QMM_EXACT_DEPTH depths, each exact in int32. */
qmm_status qmm_exact_sums(size_t m, size_t n, size_t depth, const int8_t *a, size_t lda,
                          const int8_t *b, size_t ldb, int32_t *s32, int64_t *s64);

#endif
