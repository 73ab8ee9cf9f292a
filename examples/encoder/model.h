/* The encoder's model in memory: what the weight file held, the weight
 * products packed into qmm plans (the file's bytes are freed after loading:
 * weights are held once, as int8, in the plans) and the activations of the
 * last shape run. */
#ifndef QMM_ENCODER_MODEL_H
#define QMM_ENCODER_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include <qmm/qmm.h>

#include "encoder.h"
#include "weight_file.h"

/* An embedding table as stored: float, or int8/uint8 with a scale and zero
 * point per table or per row; row r's value is (q - zero_point) * scale. */
typedef struct embedding_table {
    wf_type type;
    size_t rows, cols;
    void *data;
    float *scales;          /* 1 or rows of them */
    int32_t *zero_points;   /* as scales */
    int per_row;
} embedding_table;

/* y = x.W + b through a weights-B plan: W (k x n) packed once, with its zero
 * points; ((float)acc * x_scale) * col_scales[j] + bias[j] as the float stage. */
typedef struct weight_product {
    qmm_plan *plan;
    qmm_type weight_type;
    size_t k, n;
    float *col_scales;
    float *bias;
} weight_product;

typedef struct layer_norm {
    float *weight, *bias;
} layer_norm;

/* Q, K and V share their input: one product of width 3 x hidden. */
typedef struct encoder_layer {
    weight_product qkv, attention_output, intermediate, output;
    layer_norm attention_norm, output_norm;
} encoder_layer;

/* Activations for up to `tokens` tokens and `threads` threads. */
typedef struct activations {
    size_t tokens, threads;
    float *x;            /* tokens x hidden: the residual stream */
    float *qkv;          /* tokens x 3 hidden */
    float *context;      /* tokens x hidden */
    float *wide;         /* tokens x ffn */
    float *product;      /* tokens x hidden */
    uint8_t *quantized;  /* tokens x max(hidden, ffn) */
    float *row_scales;   /* tokens: the activation scale of each token's sequence */
    int32_t *row_zero_points;
    float *row_lo, *row_hi;  /* tokens: each row's least and greatest activation */
    uint32_t *position_of;  /* tokens: each token's position in its sequence */
    size_t *first_item;  /* tokens + 1: each sequence's first attention item (forward.c) */
    float *scratch;      /* per attention worker: keys transposed, values, a block of scores */
    size_t scratch_stride;
} activations;

struct encoder {
    encoder_config config;
    encoder_activations activations;
    embedding_table word, position, token_type;
    layer_norm embedding_norm;
    encoder_layer *layers;
    char *vocab;
    size_t vocab_bytes;
    activations act;
    encoder_times times;
};

/* activations.c */
encoder_status encoder_reserve(activations *a, const encoder_config *c, size_t tokens,
                               size_t threads);
void encoder_free_activations(activations *a);

#endif
