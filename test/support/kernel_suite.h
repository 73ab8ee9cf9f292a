/* What every kernel must pass, microkernel and driver alike: one sequence
 * shared by test_kernels_exact (each kernel supported here) and the tests of
 * kernels built against a model of their instructions. */
#ifndef QMM_KERNEL_SUITE_H
#define QMM_KERNEL_SUITE_H

#include "kernels/kernel.h"

/* Runs on kern: single tiles through its microkernel at several depths and C
 * layouts, its partial-rows microkernel for every row count (if it has one,
 * up to sums past int32 wrap), then the whole exactness suite through
 * qmm_product with kern forced; the tiles and partial rows of its uint8-A
 * twin too, if it has one (test_quant runs the twin's products). kern need not be in the registry. Returns the
 * number of checks made (failures go to test_failures). */
long kernel_suite_run(const qmm_kernel *kern);

#endif
