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

/* A decimal number from 1 to max at *p, which is moved past it; digits only,
 * so no sign, spaces or hex slip through as strtoull would let them. Returns
 * 0, *p and *out untouched, when there is none. */
int bench_read_number(const char **p, size_t max, size_t *out);

/* The same for all of text: 0 when anything follows the number. */
int bench_parse_whole(const char *text, size_t max, size_t *out);

/* "MxKxN" into *out, every size from 1 to max: 0 when text is not that. */
int bench_parse_shape(const char *text, size_t max, bench_shape *out);

#endif
