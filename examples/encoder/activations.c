/* The activations, allocated once per shape: kept between calls and grown
 * when a call has more tokens or threads than any before it. */
#include <stdlib.h>

#include "attention.h"
#include "model.h"

void encoder_free_activations(activations *a)
{
    free(a->x);
    free(a->qkv);
    free(a->context);
    free(a->wide);
    free(a->product);
    free(a->quantized);
    free(a->row_scales);
    free(a->row_zero_points);
    free(a->row_lo);
    free(a->row_hi);
    free(a->position_of);
    free(a->first_item);
    free(a->scratch);
    *a = (activations){0};
}

encoder_status encoder_reserve(activations *a, const encoder_config *c, size_t tokens,
                               size_t threads)
{
    if (tokens <= a->tokens && threads <= a->threads)
        return ENCODER_OK;
    if (tokens < a->tokens)
        tokens = a->tokens;
    if (threads < a->threads)
        threads = a->threads;
    encoder_free_activations(a);
    size_t h = c->hidden, f = c->ffn, wide = f > h ? f : h, len = c->max_positions;
    /* One scratch area per attention worker (a thread's worth of tasks:
     * forward.c), each on cache lines of its own. */
    size_t stride = (attention_scratch_floats(len, h / c->heads) + 15) / 16 * 16;
    a->x = malloc(tokens * h * sizeof(float));
    a->qkv = malloc(tokens * 3 * h * sizeof(float));
    a->context = malloc(tokens * h * sizeof(float));
    a->wide = malloc(tokens * f * sizeof(float));
    a->product = malloc(tokens * h * sizeof(float));
    a->quantized = malloc(tokens * wide);
    a->row_scales = malloc(tokens * sizeof(float));
    a->row_zero_points = malloc(tokens * sizeof(int32_t));
    a->row_lo = malloc(tokens * sizeof(float));
    a->row_hi = malloc(tokens * sizeof(float));
    a->position_of = malloc(tokens * sizeof(uint32_t));
    a->first_item = malloc((tokens + 1) * sizeof(size_t));
    a->scratch = aligned_alloc(64, threads * stride * sizeof(float));
    if (!a->x || !a->qkv || !a->context || !a->wide || !a->product || !a->quantized ||
        !a->row_scales || !a->row_zero_points || !a->row_lo || !a->row_hi ||
        !a->position_of || !a->first_item || !a->scratch) {
        encoder_free_activations(a);
        return ENCODER_ERR_NOMEM;
    }
    a->tokens = tokens;
    a->threads = threads;
    a->scratch_stride = stride;
    return ENCODER_OK;
}
