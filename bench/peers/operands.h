/* What every contender multiplies, per shape: the operands in each form the
 * contenders take them, the exact product, and the requantization that the
 * requantized contenders share. */
#ifndef QMM_PEERS_OPERANDS_H
#define QMM_PEERS_OPERANDS_H

#include <stddef.h>
#include <stdint.h>

/* C[m×n] = A[m×k]·B[k×n], and what it stands for, as the report names it. */
typedef struct shape {
    size_t m, k, n;
    const char *what;
} shape;

/* Zero points of the requantized contenders, nonzero so that the corrections
 * they take are part of what is compared: XNNPACK qs8 FC's input and output
 * ones (its weights are symmetric), and the uint8 output's of gemmlowp's
 * pipeline, whose outputs are clamped from it up (a fused ReLU, as TFLite
 * clamps them). */
enum { S8_INPUT_ZP = 3, S8_OUTPUT_ZP = -5, U8_OUTPUT_ZP = 128, U8_OUTPUT_MIN = U8_OUTPUT_ZP };

/* What the requantized contenders share, per shape, so that those compared
 * compute the same function. The output channels (the weights' rows) lie on
 * C's larger side, XNNPACK's batch on the smaller one: C's columns when
 * m <= n (weights B, batch m), else its rows (weights A, batch n). */
typedef struct quant {
    int weights_b;               /* the weights are B (channels: C's columns), else A */
    size_t batch, channels;
    int32_t *bias;               /* one per channel */
    float out_scale;             /* XNNPACK's output scale, its input scales being 1 */
    int32_t multiplier, shift;   /* 1 / out_scale as TFLite's QuantizeMultiplier gives it */
} quant;

typedef struct operands {
    shape s;
    int8_t *a, *b, *bt;       /* A m×k, B k×n, B^T n×k */
    uint8_t *a_u8, *b_u8;     /* A+128, B+128 */
    float *af, *bf;
    int32_t *ref;             /* exact C */
    quant q;
} operands;

/* Random full-range int8 A and B, with the extreme product -128·-128 in
 * C(0,0); the generator goes on from one shape to the next, so that a run's
 * operands depend only on its list of shapes. */
operands make_operands(shape s);
void free_operands(operands *o);

/* Where C(i, j) lies in a [batch][channel] buffer: XNNPACK's output layout. */
size_t batch_major(const operands *o, size_t i, size_t j);

#endif
