/*
 * What the tests against references written from qmm.h alone start with
 * (test_quant, test_quantize, test_float_gemm, test_float_crt): float
 * arithmetic one operation at a time, the count of their checks, and the
 * kernel they force. Included first, so that the pragma below holds for every
 * header after it too.
 */
#ifndef QMM_TEST_REFERENCE_TEST_H
#define QMM_TEST_REFERENCE_TEST_H

/* The references' floats are one operation each, as the header defines them:
 * no contraction into fused multiply-adds, from here to the end of the
 * including file. GCC ignores the pragma: CMake compiles these tests with
 * -ffp-contract=off for it. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma STDC FP_CONTRACT OFF
#pragma GCC diagnostic pop

#include "testlib.h"

#define COUNT(x) (sizeof(x) / sizeof((x)[0]))

/* The checks this process made: test_each_kernel_main and test_finish take it. */
extern long test_checks;

/* This process's QMM_KERNEL, which test_each_kernel_main sets; NULL while
 * the selector chooses. */
extern const char *test_forced_kernel;

/* test_forced_kernel, or "the selector's kernel": for messages. */
const char *test_kernel_said(void);

/* main's start in the tests whose suite runs under every kernel: every
 * product split over the threads, however small (as in test_threads), then
 * test_each_kernel_main with test_checks and test_forced_kernel, whose
 * answer it returns: main's exit code, or -1 for main to go on with the
 * selector's kernels. */
int test_reference_start(int argc, char **argv, const char *name, void (*suite)(void),
                         void (*unsupported)(const char *kernel));

/* qmm_per's names, by value. */
extern const char *const test_per_names[QMM_PER_ROW_COL + 1];

#endif
