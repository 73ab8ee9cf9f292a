/* The kernel a call uses: QMM_KERNEL when set, else the selector over the
 * registry. */
#ifndef QMM_CHOOSE_H
#define QMM_CHOOSE_H

#include <stddef.h>

#include "../kernels/kernel.h"
#include "qmm/qmm.h"

/* The kernel called name, if it exists and runs here: QMM_ERR_UNKNOWN_KERNEL
 * or QMM_ERR_UNSUPPORTED otherwise. */
qmm_status qmm_kernel_by_name(const char *name, const qmm_kernel **out);

/* The kernel for an m x n product computed as is, as a plan runs it (n may
 * be QMM_SYMBOLIC). */
qmm_status qmm_choose_kernel(size_t m, size_t n, const qmm_kernel **out);

/* The kernel a one-shot m x n call runs, in one selection, and whether it
 * runs the transpose C^T = B^T.A^T (a single-row product on a GEMV kernel:
 * dispatch/select.h, criterion 1). A kernel forced by QMM_KERNEL runs a
 * single-row product transposed when it is a GEMV kernel. */
qmm_status qmm_choose_for_call(size_t m, size_t n, const qmm_kernel **out, int *transposed);

#endif
