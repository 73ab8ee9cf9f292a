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

/* The kernel for an m x n result (n may be QMM_N_SYMBOLIC). */
qmm_status qmm_choose_kernel(size_t m, size_t n, const qmm_kernel **out);

/* Whether a one-shot call runs a single-row product (m == 1, n > 1) as its
 * transpose, C^T = B^T . A^T: a matrix-vector product for a GEMV kernel. It
 * does when the matrix kernel chosen for 1 x n has no partial rows, whose tile
 * would be mostly padding; one with partial rows computes just the row, on B
 * packed the way it reads it, where the transpose packs B^T across its
 * rows. Same sums, same bits. */
int qmm_runs_transposed(size_t m, size_t n);

/* The kernel a one-shot m x n call runs, orientation included. */
qmm_status qmm_choose_for_call(size_t m, size_t n, const qmm_kernel **out);

#endif
