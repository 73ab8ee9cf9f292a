/* The problem sizes the bench times, and the default set. */
#ifndef QMM_BENCH_SHAPES_H
#define QMM_BENCH_SHAPES_H

#include <stddef.h>

/* C[m x n] = A[m x k] . B[k x n]; written and parsed in the order M x K x N. */
typedef struct bench_shape {
    size_t m, k, n;
} bench_shape;

/* Square sizes, then the matrix products of MiniLM and InceptionV1 inference. */
extern const bench_shape bench_default_shapes[];
extern const size_t bench_default_shape_count;

/* Longest text bench_format_shape() writes, with its terminator. */
#define BENCH_SHAPE_TEXT_SIZE 64

/* "MxKxN" into text, which holds BENCH_SHAPE_TEXT_SIZE bytes. */
void bench_format_shape(bench_shape s, char *text);

#endif
