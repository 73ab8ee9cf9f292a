/*
 * Quantized products, as --a and --out ask for them: uint8 A with a zero
 * point, and output stages other than int32, run through qmm_gemm. The
 * stages' parameters are per column of C, as per-channel weight scales are.
 */
#ifndef QMM_BENCH_QUANTIZED_H
#define QMM_BENCH_QUANTIZED_H

#include <stddef.h>
#include <stdint.h>

#include "qmm/qmm.h"
#include "shapes.h"

/* C's type and the stage that makes it (include/qmm/qmm.h). */
typedef enum bench_out {
    BENCH_OUT_I32,       /* int32, no stage: qmm_i8_i32's product */
    BENCH_OUT_F32,       /* float: dequantized by a scale and a float bias */
    BENCH_OUT_S8,        /* int8: requantized, QMM_ROUND_TFLITE, an int32 bias */
    BENCH_OUT_S8_FLOAT,  /* int8: requantized, QMM_ROUND_FLOAT, an int32 bias */
    BENCH_OUT_COUNT
} bench_out;

/* The names --out takes and the report shows, by bench_out. */
extern const char *const bench_out_names[BENCH_OUT_COUNT];

/* The names --a takes and the report shows, by A's type: QMM_TYPE_I8 and
 * QMM_TYPE_U8. */
#define BENCH_A_TYPES 2
extern const char *const bench_a_names[BENCH_A_TYPES];

/* uint8 A's zero point: 128 + 5, off the middle, so that its products are
 * not int8's with the sign bit flipped. */
#define BENCH_A_ZERO_POINT 133
/* The int8 outputs' zero point. */
#define BENCH_OUT_ZERO_POINT 3

/* Bytes of one element of C. */
size_t bench_out_bytes(bench_out out);

/* The stages' parameters, one of each per column of C. */
typedef struct bench_params {
    int32_t *bias;              /* added to the int32 sums (int8 outputs) */
    int32_t *multiplier;        /* QMM_ROUND_TFLITE: from 2^30 to 2^31 - 1 */
    int32_t *shift;             /* QMM_ROUND_TFLITE: from -12 to -8 */
    float *scale;               /* the dequantization's: from 1e-4 to 1e-3 */
    float *float_bias;          /* the dequantization's: from -1 to 1 */
    float *requant_scale;       /* QMM_ROUND_FLOAT: multiplier * 2^(shift - 31) */
} bench_params;

/* Allocates and draws n columns' parameters from seed; 0 when they do not
 * fit in memory, with *p all NULL, which bench_params_free accepts. */
int bench_params_draw(bench_params *p, size_t n, uint64_t seed);
void bench_params_free(bench_params *p);

/* C = stage(A.B), all row-major and packed (lda = k, ldb = ldc = n). */
typedef struct bench_product {
    bench_shape s;
    qmm_type a_type;            /* QMM_TYPE_U8: a's bytes read as uint8, less BENCH_A_ZERO_POINT */
    const int8_t *a, *b;
    bench_out out;
    const bench_params *params; /* of the stage */
    void *c;                    /* of bench_out_bytes(out) elements */
} bench_product;

/* Nonzero when A of type a to out needs qmm_gemm: anything but int8 A to
 * int32. */
int bench_is_quantized(qmm_type a, bench_out out);

/* qmm_gemm's descriptor of p. */
qmm_gemm_desc bench_gemm_desc(const bench_product *p);

#endif
