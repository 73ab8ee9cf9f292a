/*
 * The operands: double matrices drawn from a named distribution, with float
 * copies of the same numbers for the float methods. The random numbers come
 * from bench/rng.h with a fixed seed per distribution, so that every run
 * multiplies the same matrices.
 */
#ifndef QMM_COMPARE_DATA_H
#define QMM_COMPARE_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "../shapes.h"

typedef enum compare_dist {
    COMPARE_UNIFORM,    /* uniform in [-1, 1] */
    COMPARE_NORMAL,     /* normal(0, 1) */
    COMPARE_SCALED,     /* uniform, each row of A and column of B times 10^u, u in [-3, 3] */
    COMPARE_OUTLIERS,   /* uniform, 0.1% of the elements times 1000 */
    COMPARE_WIDE,       /* uniform, each element times its own 2^u, u in [-30, 30] */
    COMPARE_DIST_COUNT
} compare_dist;

/* The distributions run when --dist is not given: those before COMPARE_WIDE,
 * which is run by name only (a quarter more time for what one look shows). */
#define COMPARE_DEFAULT_DIST_COUNT COMPARE_WIDE

/* What --dist takes, and what the report says, by compare_dist. */
extern const char *const compare_dist_names[COMPARE_DIST_COUNT];
extern const char *const compare_dist_descriptions[COMPARE_DIST_COUNT];

/* C[m x n] = A[m x k] . B[k x n], every matrix row-major and contiguous. */
typedef struct compare_operands {
    bench_shape shape;
    double *a, *b;
    float *af, *bf;   /* (float)a, (float)b */
} compare_operands;

/* Draws A and B from d. Returns 0 when they do not fit in memory, with
 * nothing left allocated. */
int compare_make_operands(bench_shape s, compare_dist d, compare_operands *out);
void compare_free_operands(compare_operands *o);

/* p[0..count) = int8 values uniform in [-127, 127]: the range of
 * qmm_dgemm_i8's slices (and of symmetric quantization). */
void compare_fill_digits(int8_t *p, size_t count);

#endif
