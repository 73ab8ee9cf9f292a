/*
 * The strategy selector: which kernel runs C[m x n] = A[m x k].B[k x n].
 *
 * It works on any candidate table (the real registry, or fake descriptors in
 * the tests) and never looks at table order. A candidate whose
 * is_supported_here() fails is dropped before anything else. The survivors
 * are ordered by these criteria; the first that tells two apart decides:
 *
 *  1. role: for n == 1 a GEMV kernel (nr == 1) beats a matrix kernel; for
 *     n > 1, or n symbolic (QMM_SYMBOLIC), a matrix kernel (nr > 1)
 *     beats every GEMV kernel whatever its rank or tile. A one-shot
 *     single-row product (m == 1 < n) may also run as its transpose, C^T =
 *     B^T.A^T, an n x 1 product: there a matrix kernel with partial rows
 *     (which computes just the row, on B packed the way it reads it) beats a
 *     GEMV kernel on the transpose, which beats a matrix kernel without
 *     partial rows (a tile mostly padding); same sums, same bits;
 *  2. expected speed on the shape it computes: rank times the useful fraction of
 *     the tiles covering m x n (for symbolic n, m only), higher first: a
 *     kernel whose tiles are mostly padding loses to a better-fitting one
 *     unless its rank makes up for the waste. A one-shot product with n == 1
 *     uses each byte of A once, so packing A costs about as much as the
 *     MACs: there a kernel whose A format is interleaved (packed, a
 *     transpose) is slowed by its packer's speed, and one whose format is
 *     K-inner int8 (the caller's row-major A, read in place) is not;
 *  3. rank: the kernel's declared speed on full tiles, relative to the
 *     portable kernels' 10 (a kernel twice as fast has rank 20), higher first;
 *  4. tile area mr*nr, larger first (fewer loads per MAC);
 *  5. name, so that equal kernels still give one answer in any order.
 */
#ifndef QMM_SELECT_H
#define QMM_SELECT_H

#include <stddef.h>

#include "../kernels/kernel.h"
#include "qmm/qmm.h"

/* The best supported candidate for the shape, or NULL if none is supported.
 * one_shot: a single call, not a plan's: the product may run transposed
 * (criterion 1) and A is packed for this call only (criterion 2). */
const qmm_kernel *qmm_select(const qmm_kernel *const *cands, size_t count, size_t m,
                             size_t n, int one_shot);

/* Whether k, chosen for the shape, runs it as its transpose. */
int qmm_select_transposes(const qmm_kernel *k, size_t m, size_t n, int one_shot);

/* Name of the first criterion that separates winner from loser ("role",
 * "expected speed", "rank", "tile area", "name"): why the selector preferred winner. */
const char *qmm_select_why(const qmm_kernel *winner, const qmm_kernel *loser, size_t m,
                           size_t n, int one_shot);

#endif
