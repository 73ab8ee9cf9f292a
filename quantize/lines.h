/*
 * The passes over a float or double matrix that quantization and
 * dequantization make, as a table per float type and instruction set.
 *
 * A value's key is its bits read as a signed integer of its width, the
 * magnitude bits flipped when the sign is set: keys order as the values do
 * (-0.0 just below +0.0), and NaN keys lie beyond the infinities', so one
 * smallest and one largest key per line give its range and whether every
 * value is finite.
 *
 * Row-major matrices (element (i, j) at x[i*ldx + j]); "per row" parameter
 * arrays are read at [i * row_step] (row_step 0: one value for the matrix),
 * "per column" ones at [j].
 */
#ifndef QMM_QUANTIZE_LINES_H
#define QMM_QUANTIZE_LINES_H

#include <stddef.h>
#include <stdint.h>

/* How values become integers: clamp(round(x / div) + zp, qmin, qmax). */
typedef struct qmm_qrange {
    int32_t qmin, qmax;
    int asymmetric;          /* the range from min and max with a zero point */
} qmm_qrange;

typedef struct qmm_lines {
    size_t elem;             /* bytes per value and per key: 4 (float) or 8 (double) */
    /* kmin[i], kmax[i] := the smallest and largest keys of row i. */
    void (*extrema_rows)(const void *x, size_t ldx, size_t rows, size_t cols, void *kmin,
                         void *kmax);
    /* kmin[j], kmax[j] := the smallest and largest of themselves and the keys
     * of column j's rows (extrema_reset starts them). */
    void (*extrema_cols)(const void *x, size_t ldx, size_t rows, size_t cols, void *kmin,
                         void *kmax);
    void (*extrema_reset)(size_t count, void *kmin, void *kmax);
    /* dst := the extrema of dst and src, count lines. */
    void (*extrema_merge)(size_t count, void *dmin, void *dmax, const void *smin,
                          const void *smax);
    /* Line i's parameters from its extrema: scales[i], div[i] (the divisor:
     * the scale, or 1 where it is 0) and zp[i]. 0 when a value is not finite
     * or the asymmetric range overflows, nothing written then. */
    /* out[i] := line i's largest magnitude; 0 when a value is not finite. */
    int (*max_abs)(const void *kmin, const void *kmax, size_t i, void *out);
    int (*params)(const void *kmin, const void *kmax, size_t i, const qmm_qrange *r,
                  void *scales, void *div, int32_t *zp);
    void (*quantize_rows)(const void *x, size_t ldx, size_t rows, size_t cols, const void *div,
                          const int32_t *zp, size_t row_step, const qmm_qrange *r,
                          unsigned char *q, size_t ldq);
    void (*quantize_cols)(const void *x, size_t ldx, size_t rows, size_t cols, const void *div,
                          const int32_t *zp, const qmm_qrange *r, unsigned char *q,
                          size_t ldq);
    /* x = (q - zp) * scale, q int8 (is_signed) or uint8; zp NULL: 0. */
    void (*dequantize_rows)(const unsigned char *q, size_t ldq, int is_signed, size_t rows,
                            size_t cols, const void *scales, const int32_t *zp,
                            size_t row_step, void *x, size_t ldx);
    void (*dequantize_cols)(const unsigned char *q, size_t ldq, int is_signed, size_t rows,
                            size_t cols, const void *scales, const int32_t *zp, void *x,
                            size_t ldx);
} qmm_lines;

/* The table for this CPU: is_f64 picks double over float. */
const qmm_lines *qmm_lines_pick(int is_f64);

#endif
