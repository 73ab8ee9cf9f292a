/* One-shot products: the public entry points (gemm.c), and one on a kernel forced. */
#ifndef QMM_GEMM_H
#define QMM_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "../kernels/kernel.h"
#include "qmm/qmm.h"

/* The strided one-shot product with its arguments checked, on the kernel
 * forced, or when forced is NULL on the kernel a plan for m x n would get
 * (never transposed): what tests and the bench compare kernels with. */
qmm_status qmm_product(const qmm_kernel *forced, size_t m, size_t n, size_t k,
                       const int8_t *a, ptrdiff_t rsa, ptrdiff_t csa,
                       const int8_t *b, ptrdiff_t rsb, ptrdiff_t csb,
                       int32_t *c, ptrdiff_t rsc, ptrdiff_t csc);

#endif
