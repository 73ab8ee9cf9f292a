/* The argument rules of include/qmm/qmm.h, checked in one place. */
#ifndef QMM_ARGS_H
#define QMM_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "qmm/qmm.h"

/* The byte range [lo, hi) a matrix covers. */
typedef struct qmm_span {
    uintptr_t lo, hi;
} qmm_span;

int qmm_spans_overlap(qmm_span x, qmm_span y);

/* A row-major rows x cols matrix of elem-byte elements with at least one
 * element: p not NULL, cols <= ld <= PTRDIFF_MAX, a span that fits (in *out);
 * otherwise QMM_ERR_INVALID_ARG, said under QMM_VERBOSE with the matrix's name. */
qmm_status qmm_check_matrix(const char *name, const void *p, size_t rows, size_t cols,
                            size_t ld, size_t elem, qmm_span *out);

/* QMM_OK when the strided call's arguments follow every rule (A and B of
 * bytes, C of c_elem-byte elements); otherwise QMM_ERR_INVALID_ARG, with
 * the broken rule named on stderr under QMM_VERBOSE. */
qmm_status qmm_check_args(size_t m, size_t n, size_t k,
                          const void *a, ptrdiff_t rsa, ptrdiff_t csa,
                          const void *b, ptrdiff_t rsb, ptrdiff_t csb,
                          const void *c, size_t c_elem, ptrdiff_t rsc, ptrdiff_t csc);

/* The rules for A alone, when a plan packs it: QMM_OK when m or k is 0. */
qmm_status qmm_check_a(size_t m, size_t k, const void *a, ptrdiff_t rsa, ptrdiff_t csa);

/* The rules for B and C, when a plan runs with A already packed. */
qmm_status qmm_check_b_c(size_t m, size_t n, size_t k, const void *b, ptrdiff_t rsb,
                         ptrdiff_t csb, const void *c, size_t c_elem, ptrdiff_t rsc,
                         ptrdiff_t csc);

/* A row-major leading dimension: cols <= ld <= PTRDIFF_MAX. */
int qmm_leading_dim_ok(size_t ld, size_t cols, const char *name);

#endif
