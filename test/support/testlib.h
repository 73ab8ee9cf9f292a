/*
 * Shared by the test programs: a deterministic RNG, matrices in any layout
 * with guarded surroundings, the naive reference product, and a failure
 * counter. Tests are plain programs: main returns the failure count clamped
 * to 1, so ctest sees pass or fail.
 */
#ifndef QMM_TESTLIB_H
#define QMM_TESTLIB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "qmm/qmm.h"
#include "feature_said.h"

/* ---- failures ---------------------------------------------------------- */
extern long test_failures;
/* Records a failure with its location; prints at most the first 20. */
void test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond))                                                           \
            test_fail(__FILE__, __LINE__, __VA_ARGS__);                        \
    } while (0)
/* Prints a summary line and returns main's exit code. */
int test_finish(const char *name, long checks);

/* A test of several modes, one per process ("program MODE"): runs the mode
 * argv[1] names and returns test_finish("program MODE", *checks); with no or
 * an unknown mode, lists the modes on stderr and returns 2. */
typedef struct test_mode {
    const char *name;
    void (*run)(void);
} test_mode;
int test_mode_main(int argc, char **argv, const char *program, const test_mode *modes,
                   size_t count, const long *checks);

/* ---- which kernels a run tests ------------------------------------------- */
struct qmm_kernel;
/* Whether this run tests kernel k (supported here or not: the caller says
 * which it needs), by the environment variable QMM_TEST_KERNELS, which
 * cmake/qmm_testing.cmake sets per emulated CPU:
 *   unset or "all"  every kernel (natively, and on an emulated CPU with every
 *                   extension, where each kernel runs);
 *   "scalable"      those supported here whose tile grows with a vector
 *                   length (SVE's, SME's): on a CPU that is there for its
 *                   vector lengths;
 *   "selected"      those the selector would choose here, the best ranked of
 *                   each role (matrix, matrix-vector), supported here: what
 *                   this CPU's tiers bring, where another run forces every
 *                   kernel (the same code on another CPU, or natively); a test
 *                   that runs the selector's kernels itself forks no child
 *                   (test_each_kernel).
 * Another value fails the test. */
int test_kernel_wanted(const struct qmm_kernel *k);
/* Whether this run tests every kernel (QMM_TEST_KERNELS unset or "all"). */
int test_all_kernels(void);

/* ---- every kernel, each in a child process ------------------------------ */
/* For each kernel qmm_kernel_at lists, forks a child that sets QMM_KERNEL to
 * its name (the library reads its environment once: call this before the
 * process makes its first product), *forced to its name too (for the test's
 * messages), *checks and test_failures to zero (the parent's so far are not
 * the child's), calls suite() when this CPU supports the kernel, else
 * unsupported(name), and exits with test_finish(name, *checks). With
 * unsupported NULL, a kernel this CPU does not support gets no child. One
 * child at a time; each one's exit status is a check in the calling process,
 * added to *checks. Kernels test_kernel_wanted leaves out get no child, and
 * with QMM_TEST_KERNELS=selected none does: the caller goes on with the
 * selector's kernels. */
void test_each_kernel(long *checks, const char **forced, void (*suite)(void),
                      void (*unsupported)(const char *kernel));
/* The command line "name [KERNEL]" of such a test, before it makes a product.
 * With KERNEL: sets QMM_KERNEL and *forced to it, calls suite() and returns
 * test_finish(KERNEL, *checks), main's exit code. With more arguments: says
 * the usage on stderr and returns 2. With none: clears QMM_KERNEL, calls
 * test_each_kernel(checks, forced, suite, unsupported) and returns -1, for
 * main to go on with the selector's kernels. */
int test_each_kernel_main(int argc, char **argv, const char *name, long *checks,
                          const char **forced, void (*suite)(void),
                          void (*unsupported)(const char *kernel));

/* The most threads the tests run a product on, and the counts one call runs
 * on: all of 1 to TEST_MAX_THREADS, or with some, 1 and one other, 2 +
 * key % (TEST_MAX_THREADS - 1), so that successive keys cycle through them.
 * Fills counts and returns how many. */
enum { TEST_MAX_THREADS = 4 };
size_t test_thread_counts(int some, size_t key, size_t counts[TEST_MAX_THREADS]);

/* ---- random numbers (xorshift64*, fixed seed per test) ------------------ */
void test_seed(uint64_t seed);
uint64_t test_rand(void);
size_t test_rand_below(size_t n);          /* uniform in [0, n) */
int8_t test_rand_i8(void);                 /* full range, -128 included */
double test_rand_unit(void);               /* uniform in [0, 1), 53 random bits */
double test_rand_signed(void);             /* uniform in [-1, 1) */

/* ---- matrices ----------------------------------------------------------- */
typedef enum test_layout {
    LAYOUT_ROW,       /* rs = ld >= cols, cs = 1 */
    LAYOUT_COL,       /* rs = 1, cs = ld >= rows (a transposed row-major) */
    LAYOUT_SPACED,    /* both strides > 1: every other element in both directions */
    LAYOUT_REVERSED,  /* row-major with both strides negative */
    LAYOUT_COUNT
} test_layout;
extern const char *const test_layout_names[LAYOUT_COUNT];

/* A rows x cols matrix of elem-byte elements at base[i*rs + j*cs], inside an
 * allocation whose every other byte (gaps between elements and a guard zone
 * on both sides) holds a known pattern. */
typedef struct test_matrix {
    unsigned char *mem;
    size_t bytes;
    void *base;
    ptrdiff_t rs, cs;
    size_t rows, cols, elem;
} test_matrix;

/* pad: extra elements per leading dimension (ROW, COL); 0 for tight. */
test_matrix test_matrix_new(size_t rows, size_t cols, size_t elem, test_layout layout,
                            size_t pad);
/* The same with any strides, zero and negative included, and the lowest
 * element shift bytes (a multiple of elem) past a 64-byte boundary, whatever
 * the heap: the operand's alignment is the caller's choice. */
test_matrix test_matrix_strided(size_t rows, size_t cols, size_t elem, ptrdiff_t rs,
                                ptrdiff_t cs, size_t shift);
/* Elements from the lowest to the highest of a rows x cols operand, plus one
 * (0 when it has none). */
size_t test_span(size_t rows, size_t cols, ptrdiff_t rs, ptrdiff_t cs);
/* A rows x cols view whose lowest element is offset bytes past within's
 * lowest (the caller keeps it inside within's elements): it owns no memory,
 * and may overlap other views of within. */
test_matrix test_matrix_view(const test_matrix *within, size_t offset, size_t rows,
                             size_t cols, size_t elem, ptrdiff_t rs, ptrdiff_t cs);
void test_matrix_free(test_matrix *m);   /* a view: nothing to free */
void test_matrix_fill_random_i8(test_matrix *m);   /* elements only */
void test_matrix_fill_by(test_matrix *m, int8_t (*value)(void)); /* one call per element */
void test_matrix_fill_i8(test_matrix *m, int8_t v);
void test_matrix_fill_i32(test_matrix *m, int32_t v);  /* elements of 4 bytes */
int8_t test_i8_at(const test_matrix *m, size_t i, size_t j);
int32_t test_i32_at(const test_matrix *m, size_t i, size_t j);
/* Nonzero when every byte outside the elements still holds the pattern. */
int test_matrix_surroundings_intact(const test_matrix *m);

/* ---- reference ---------------------------------------------------------- */
/* C = A.B exactly, modulo 2^32, into a dense row-major m x n array. */
void test_reference(const test_matrix *a, const test_matrix *b, int32_t *c);
/* The same with A's bytes read as uint8 (a kernel's uint8-A twin). */
void test_reference_a_u8(const test_matrix *a, const test_matrix *b, int32_t *c);

/* An accurate dot product, sum_d a[d*as] b[d*bs]: TwoProduct by fma,
 * TwoSum, the errors summed apart (Ogita, Rump and Oishi's Dot2), as if in
 * twice double's precision. The value is hi + lo, kept apart. */
typedef struct test_dd {
    double hi, lo;
} test_dd;
test_dd test_dot2(const double *a, size_t as, const double *b, size_t bs, size_t k);

/* Compares C (a test_matrix of int32) to a dense reference; counts and
 * reports mismatches under the given label. Returns the number of mismatches. */
size_t test_compare(const char *label, const test_matrix *c, const int32_t *ref);

#endif
