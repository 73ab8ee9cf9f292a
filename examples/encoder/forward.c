/* One pass of the encoder over a batch of unpadded sequences, the tokens of
 * all of them as the rows of every weight product. The float parts run on
 * qmm's thread count through OpenMP, between qmm's calls (never beside them),
 * each row or (sequence, head, query block) a task of its own: no result
 * depends on which thread computed it. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "attention.h"
#include "float_ops.h"
#include "model.h"

#ifdef _OPENMP
#include <omp.h>
#define ENCODER_PRAGMA(x) _Pragma(#x)
#define PARALLEL_FOR ENCODER_PRAGMA(omp parallel for schedule(static) num_threads(nt))
#define PARALLEL_FOR_ANY(flag) \
    ENCODER_PRAGMA(omp parallel for schedule(static) num_threads(nt) reduction(| : flag))
static size_t thread_index(void)
{
    return (size_t)omp_get_thread_num();
}
#else
#define PARALLEL_FOR (void)nt;
#define PARALLEL_FOR_ANY(flag) (void)nt;
static size_t thread_index(void)
{
    return 0;
}
#endif


typedef struct batch {
    size_t count, tokens;
    const size_t *offsets;   /* offsets[s] - offsets[0]: sequence s's first token */
    const int32_t *ids;      /* from offsets[0] */
    int nt;
} batch;

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static size_t first_token(const batch *b, size_t s)
{
    return b->offsets[s] - b->offsets[0];
}

/* out (+)= row r of the table, as floats. */
static void add_table_row(const embedding_table *t, size_t r, float *out, int accumulate)
{
    size_t n = t->cols;
    for (size_t c = 0; c < n; c++) {
        float v;
        if (t->type == WF_F32) {
            v = ((const float *)t->data)[r * n + c];
        } else {
            size_t line = t->per_row ? r : 0;
            int32_t q = t->type == WF_U8 ? ((const uint8_t *)t->data)[r * n + c]
                                         : ((const int8_t *)t->data)[r * n + c];
            int32_t zp = t->zero_points ? t->zero_points[line] : 0;
            v = (float)(q - zp) * t->scales[line];
        }
        out[c] = accumulate ? out[c] + v : v;
    }
}

/* x = LayerNorm((word + token type) + position), the order of the exported
 * graph's additions. */
static void embed_tokens(encoder *e, const batch *b)
{
    const encoder_config *c = &e->config;
    activations *a = &e->act;
    size_t h = c->hidden;
    int nt = b->nt;
    for (size_t s = 0; s < b->count; s++) {
        for (size_t t = first_token(b, s); t < first_token(b, s + 1); t++) {
            a->sequence_of[t] = (uint32_t)s;
            a->position_of[t] = (uint32_t)(t - first_token(b, s));
        }
    }
    PARALLEL_FOR
    for (size_t t = 0; t < b->tokens; t++) {
        float *x = a->x + t * h;
        add_table_row(&e->word, (size_t)b->ids[t], x, 0);
        add_table_row(&e->token_type, 0, x, 1);
        add_table_row(&e->position, a->position_of[t], x, 1);
        float_add_layer_norm(x, NULL, h, e->embedding_norm.weight, e->embedding_norm.bias,
                             c->layer_norm_eps);
    }
}

/* The rows of src (tokens x cols) to uint8 as DynamicQuantizeLinear does,
 * one scale and zero point per sequence: its range from the rows' least and
 * greatest values (exact in any order), the parameters by qmm's asymmetric
 * quantization of that range (the same formula over the same two extremes),
 * the values by qmm_quantize_f32 with them. */
static encoder_status quantize_rows(encoder *e, const batch *b, const float *src, size_t cols)
{
    activations *a = &e->act;
    int nt = b->nt, failed = 0;
    PARALLEL_FOR
    for (size_t t = 0; t < b->tokens; t++)
        float_range(src + t * cols, cols, &a->row_lo[t], &a->row_hi[t]);
    for (size_t s = 0; s < b->count && !failed; s++) {
        size_t t0 = first_token(b, s), t1 = first_token(b, s + 1);
        float range[2] = {a->row_lo[t0], a->row_hi[t0]};
        for (size_t t = t0 + 1; t < t1; t++) {
            range[0] = a->row_lo[t] < range[0] ? a->row_lo[t] : range[0];
            range[1] = a->row_hi[t] > range[1] ? a->row_hi[t] : range[1];
        }
        uint8_t q[2];
        float scale;
        int32_t zp;
        failed = qmm_quantize_asymmetric_f32(1, 2, range, 2, QMM_PER_MATRIX, QMM_TYPE_U8, q, 2,
                                             &scale, &zp) != QMM_OK;
        for (size_t t = t0; t < t1; t++) {
            a->row_scales[t] = scale;
            a->row_zero_points[t] = zp;
        }
    }
    if (failed)
        return ENCODER_ERR_QMM;
    PARALLEL_FOR_ANY(failed)
    for (size_t t = 0; t < b->tokens; t++) {
        uint8_t *q = a->quantized + t * cols;
        /* A sequence of zeros: scale 0, every value the zero point. */
        if (a->row_scales[t] == 0.0f)
            memset(q, a->row_zero_points[t], cols);
        else
            failed |= qmm_quantize_f32(1, cols, src + t * cols, cols, QMM_PER_MATRIX,
                                       &a->row_scales[t], &a->row_zero_points[t], QMM_TYPE_U8,
                                       q, cols) != QMM_OK;
    }
    return failed ? ENCODER_ERR_QMM : ENCODER_OK;
}

/* out = dequantize(quantized . W) + bias: the product and its float stage
 * in one qmm call. */
static encoder_status run_product(encoder *e, const batch *b, const weight_product *p,
                                  float *out)
{
    activations *a = &e->act;
    qmm_gemm_desc d = {
        .m = b->tokens, .n = p->n, .k = p->k,
        .a = {.type = QMM_TYPE_U8, .data = a->quantized, .rs = (ptrdiff_t)p->k, .cs = 1,
              .zero_point = {.per = QMM_PER_ROW, .values = a->row_zero_points}},
        .b = {.type = p->weight_type},
        .c = {.type = QMM_TYPE_F32, .data = out, .rs = (ptrdiff_t)p->n, .cs = 1,
              .dequant = {.scale = {.per = QMM_PER_ROW_COL, .values = a->row_scales,
                                    .col_values = p->col_scales},
                          .bias = {.per = QMM_PER_COL, .values = p->bias}}},
    };
    return qmm_plan_gemm(p->plan, &d) == QMM_OK ? ENCODER_OK : ENCODER_ERR_QMM;
}

/* The weight product of src (tokens x p->k): quantization and the product,
 * timed as products. */
static encoder_status product(encoder *e, const batch *b, const float *src,
                              const weight_product *p, float *out)
{
    double t = seconds();
    encoder_status st = quantize_rows(e, b, src, p->k);
    if (st == ENCODER_OK)
        st = run_product(e, b, p, out);
    e->times.products += seconds() - t;
    return st;
}

static void attention(encoder *e, const batch *b)
{
    const encoder_config *c = &e->config;
    activations *a = &e->act;
    size_t h = c->hidden, heads = c->heads, dh = h / heads, ld = 3 * h;
    float scale = 1.0f / sqrtf((float)dh);
    int nt = b->nt;
    for (size_t s = 0; s < b->count; s++) {
        size_t t0 = first_token(b, s), len = first_token(b, s + 1) - t0;
        /* A head's queries split in blocks only where the heads alone leave
         * threads idle: each task transposes its head's keys. */
        size_t blocks = ((size_t)nt + heads - 1) / heads, most = (len + 3) / 4;
        blocks = blocks < most ? blocks : most;
        size_t block = ((len + blocks - 1) / blocks + 3) / 4 * 4;
        blocks = (len + block - 1) / block;
        const float *qkv = a->qkv + t0 * ld;
        float *context = a->context + t0 * h;
        PARALLEL_FOR
        for (size_t task = 0; task < heads * blocks; task++) {
            size_t head = task / blocks, i0 = task % blocks * block;
            size_t rows = len - i0 < block ? len - i0 : block;
            const float *q = qkv + head * dh;
            attention_rows(q + i0 * ld, rows, q + h, q + 2 * h, ld, len, dh, scale,
                           context + i0 * h + head * dh, h,
                           a->scratch + thread_index() * a->scratch_stride);
        }
    }
}

static void add_layer_norm(encoder *e, const batch *b, const layer_norm *norm)
{
    activations *a = &e->act;
    size_t h = e->config.hidden;
    int nt = b->nt;
    PARALLEL_FOR
    for (size_t t = 0; t < b->tokens; t++)
        float_add_layer_norm(a->x + t * h, a->product + t * h, h, norm->weight, norm->bias,
                             e->config.layer_norm_eps);
}

static void gelu(encoder *e, const batch *b)
{
    size_t f = e->config.ffn;
    float *wide = e->act.wide;
    int nt = b->nt;
    PARALLEL_FOR
    for (size_t t = 0; t < b->tokens; t++)
        float_gelu(wide + t * f, f);
}

static encoder_status run_layer(encoder *e, const batch *b, const encoder_layer *layer)
{
    activations *a = &e->act;
    encoder_status st = product(e, b, a->x, &layer->qkv, a->qkv);
    if (st != ENCODER_OK)
        return st;
    double t = seconds();
    attention(e, b);
    e->times.attention += seconds() - t;
    st = product(e, b, a->context, &layer->attention_output, a->product);
    if (st != ENCODER_OK)
        return st;
    t = seconds();
    add_layer_norm(e, b, &layer->attention_norm);
    e->times.rest += seconds() - t;
    st = product(e, b, a->x, &layer->intermediate, a->wide);
    if (st != ENCODER_OK)
        return st;
    t = seconds();
    gelu(e, b);
    e->times.rest += seconds() - t;
    st = product(e, b, a->wide, &layer->output, a->product);
    if (st != ENCODER_OK)
        return st;
    t = seconds();
    add_layer_norm(e, b, &layer->output_norm);
    e->times.rest += seconds() - t;
    return ENCODER_OK;
}

static encoder_status check_batch(const encoder *e, size_t count, const size_t *offsets,
                                  const int32_t *ids, const float *out, batch *b)
{
    const encoder_config *c = &e->config;
    if (offsets == NULL || ids == NULL || out == NULL)
        return ENCODER_ERR_ARG;
    size_t widest = 3 * (size_t)c->hidden > c->ffn ? 3 * (size_t)c->hidden : c->ffn;
    for (size_t s = 0; s < count; s++) {
        if (offsets[s + 1] <= offsets[s] || offsets[s + 1] - offsets[s] > c->max_positions)
            return ENCODER_ERR_ARG;
    }
    size_t tokens = offsets[count] - offsets[0];
    if (tokens > SIZE_MAX / sizeof(float) / widest)
        return ENCODER_ERR_ARG;
    for (size_t t = 0; t < tokens; t++) {
        if (ids[offsets[0] + t] < 0 || (uint32_t)ids[offsets[0] + t] >= c->vocab)
            return ENCODER_ERR_ARG;
    }
    size_t threads = qmm_get_num_threads();
    *b = (batch){.count = count, .tokens = tokens, .offsets = offsets, .ids = ids + offsets[0],
                 .nt = threads > 1024 ? 1024 : (int)threads};
    return ENCODER_OK;
}

/* The last hidden state of the batch, in e->act.x. */
static encoder_status run(encoder *e, const batch *b)
{
    encoder_status st = encoder_reserve(&e->act, &e->config, b->tokens, (size_t)b->nt);
    if (st != ENCODER_OK)
        return st;
    double t = seconds();
    embed_tokens(e, b);
    e->times.rest += seconds() - t;
    for (uint32_t l = 0; l < e->config.layers && st == ENCODER_OK; l++)
        st = run_layer(e, b, &e->layers[l]);
    return st;
}

static void pool(encoder *e, const batch *b, float *out)
{
    const encoder_config *c = &e->config;
    size_t h = c->hidden;
    const float *x = e->act.x;
    int nt = b->nt;
    PARALLEL_FOR
    for (size_t s = 0; s < b->count; s++) {
        size_t t0 = first_token(b, s), len = first_token(b, s + 1) - t0;
        float *v = out + s * h;
        memcpy(v, x + t0 * h, h * sizeof *v);
        if (c->pooling == ENCODER_POOL_MEAN) {
            for (size_t t = 1; t < len; t++)
                float_axpy(v, 1.0f, x + (t0 + t) * h, h);
            for (size_t j = 0; j < h; j++)
                v[j] = v[j] / (float)len;
        }
        if (c->normalize) {
            float norm = sqrtf(float_sum_squares(v, h, 0.0f));
            norm = norm > 1e-12f ? norm : 1e-12f;
            for (size_t j = 0; j < h; j++)
                v[j] = v[j] / norm;
        }
    }
}

encoder_status encoder_embed(encoder *e, size_t count, const size_t *offsets, const int32_t *ids,
                             float *out)
{
    batch b;
    if (e == NULL)
        return ENCODER_ERR_ARG;
    if (count == 0)
        return ENCODER_OK;
    encoder_status st = check_batch(e, count, offsets, ids, out, &b);
    if (st == ENCODER_OK)
        st = run(e, &b);
    if (st == ENCODER_OK) {
        double t = seconds();
        pool(e, &b, out);
        e->times.rest += seconds() - t;
    }
    return st;
}

encoder_status encoder_hidden_states(encoder *e, size_t count, const size_t *offsets,
                                     const int32_t *ids, float *out)
{
    batch b;
    if (e == NULL)
        return ENCODER_ERR_ARG;
    if (count == 0)
        return ENCODER_OK;
    encoder_status st = check_batch(e, count, offsets, ids, out, &b);
    if (st == ENCODER_OK)
        st = run(e, &b);
    if (st == ENCODER_OK)
        memcpy(out, e->act.x, b.tokens * e->config.hidden * sizeof *out);
    return st;
}
