/*
 * The strategy selector: which kernel runs C[m x n] = A[m x k].B[k x n].
 *
 * It works on any candidate table (the real registry, or fake descriptors in
 * the tests) and never looks at table order. A candidate whose
 * is_supported_here() fails is dropped before anything else. The survivors
 * are ordered by these criteria; the first that tells two apart decides:
 *
 *  1. role: for n == 1 a GEMV kernel (nr == 1) beats a matrix kernel; for
 *     n > 1, or n symbolic (QMM_N_SYMBOLIC), a matrix kernel (nr > 1)
 *     beats every GEMV kernel whatever its rank or tile;
 *  2. expected speed on this shape: rank times the useful fraction of
 *     the tiles covering m x n (for symbolic n, m only), higher first: a
 *     kernel whose tiles are mostly padding loses to a better-fitting one
 *     unless its rank makes up for the waste;
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

/* The best supported candidate for the shape, or NULL if none is supported. */
const qmm_kernel *qmm_select(const qmm_kernel *const *cands, size_t count, size_t m,
                             size_t n);

/* Name of the first criterion that separates winner from loser ("role",
 * "expected speed", "rank", "tile area", "name"): why the selector preferred winner. */
const char *qmm_select_why(const qmm_kernel *winner, const qmm_kernel *loser, size_t m,
                           size_t n);

#endif
