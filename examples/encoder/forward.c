/* One pass of the encoder over a batch of unpadded sequences, the tokens of
 * all of them as the rows of every weight product. The float parts run on
 * qmm's threads (qmm_parallel_for: OpenMP or the engine's pool), between
 * qmm's calls (never beside them), in tasks of whole rows or of (sequence,
 * head, query block) items: no result depends on which thread computed it. */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "attention.h"
#include "float_ops.h"
#include "model.h"

typedef struct batch {
    size_t count, tokens;
    const size_t *offsets;   /* offsets[s] - offsets[0]: sequence s's first token */
    const int32_t *ids;      /* from offsets[0] */
    size_t threads;
} batch;

/* What a parallel step's tasks share; each step reads the fields it needs. */
typedef struct step {
    encoder *e;
    const batch *b;
    size_t tasks;
    const float *src;          /* quantize: the rows, cols wide */
    size_t cols;
    const layer_norm *norm;    /* add_layer_norm */
    size_t items;              /* attention: (sequence, head, query block) items */
    float *out;                /* pool */
    atomic_int failed;
} step;

/* Task t of `tasks` over n items: [*begin, *end), contiguous and balanced. */
static void task_range(size_t t, size_t tasks, size_t n, size_t *begin, size_t *end)
{
    *begin = n * t / tasks;
    *end = n * (t + 1) / tasks;
}

/* Row tasks of rows `width` floats wide: as many as threads, each a
 * contiguous range of rows, but none of fewer than ROW_TASK_FLOATS floats
 * (a task costs the threads more than that saves). */
enum { ROW_TASK_FLOATS = 1 << 14 };

static void run_rows(encoder *e, const batch *b, qmm_task_fn *task, step *s, size_t width)
{
    size_t most = b->tokens * width / ROW_TASK_FLOATS;
    s->e = e;
    s->b = b;
    s->tasks = most < 1 ? 1 : most < b->threads ? most : b->threads;
    qmm_parallel_for(s->tasks, task, s);
}

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
static void embed_task(void *context, size_t task)
{
    step *st = context;
    encoder *e = st->e;
    const activations *a = &e->act;
    size_t h = e->config.hidden, t0, t1;
    task_range(task, st->tasks, st->b->tokens, &t0, &t1);
    for (size_t t = t0; t < t1; t++) {
        float *x = a->x + t * h;
        add_table_row(&e->word, (size_t)st->b->ids[t], x, 0);
        add_table_row(&e->token_type, 0, x, 1);
        add_table_row(&e->position, a->position_of[t], x, 1);
        float_add_layer_norm(x, NULL, h, e->embedding_norm.weight, e->embedding_norm.bias,
                             e->config.layer_norm_eps);
    }
}

static void embed_tokens(encoder *e, const batch *b)
{
    activations *a = &e->act;
    for (size_t s = 0; s < b->count; s++) {
        for (size_t t = first_token(b, s); t < first_token(b, s + 1); t++)
            a->position_of[t] = (uint32_t)(t - first_token(b, s));
    }
    step st = {0};
    run_rows(e, b, embed_task, &st, e->config.hidden);
}

/* Activations to uint8 as DynamicQuantizeLinear does, one scale and zero
 * point per token or per sequence: the range of its rows from their least and
 * greatest values (exact in any order), the parameters by qmm's asymmetric
 * quantization of that range (the same formula over the same two extremes),
 * the values by qmm_quantize_f32 with them. */
static int parameters_of(float lo, float hi, float *scale, int32_t *zero_point)
{
    const float range[2] = {lo, hi};
    uint8_t q[2];
    return qmm_quantize_asymmetric_f32(1, 2, range, 2, QMM_PER_MATRIX, QMM_TYPE_U8, q, 2, scale,
                                       zero_point) == QMM_OK;
}

static int quantize_row(activations *a, size_t t, const float *src, size_t cols)
{
    uint8_t *q = a->quantized + t * cols;
    /* Zeros alone: scale 0, every value the zero point. */
    if (a->row_scales[t] == 0.0f) {
        memset(q, a->row_zero_points[t], cols);
        return 1;
    }
    return qmm_quantize_f32(1, cols, src + t * cols, cols, QMM_PER_MATRIX, &a->row_scales[t],
                            &a->row_zero_points[t], QMM_TYPE_U8, q, cols) == QMM_OK;
}

/* Per token: each row's range, parameters and values at once. */
FLOAT_CLONES static void quantize_tokens_task(void *context, size_t task)
{
    step *st = context;
    activations *a = &st->e->act;
    size_t t0, t1;
    int ok = 1;
    task_range(task, st->tasks, st->b->tokens, &t0, &t1);
    for (size_t t = t0; t < t1; t++) {
        float lo, hi;
        float_range(st->src + t * st->cols, st->cols, &lo, &hi);
        ok &= parameters_of(lo, hi, &a->row_scales[t], &a->row_zero_points[t]);
        ok &= quantize_row(a, t, st->src, st->cols);
    }
    if (!ok)
        atomic_store(&st->failed, 1);
}

FLOAT_CLONES static void ranges_task(void *context, size_t task)
{
    step *st = context;
    activations *a = &st->e->act;
    size_t t0, t1;
    task_range(task, st->tasks, st->b->tokens, &t0, &t1);
    for (size_t t = t0; t < t1; t++)
        float_range(st->src + t * st->cols, st->cols, &a->row_lo[t], &a->row_hi[t]);
}

static void quantize_rows_task(void *context, size_t task)
{
    step *st = context;
    size_t t0, t1;
    int ok = 1;
    task_range(task, st->tasks, st->b->tokens, &t0, &t1);
    for (size_t t = t0; t < t1; t++)
        ok &= quantize_row(&st->e->act, t, st->src, st->cols);
    if (!ok)
        atomic_store(&st->failed, 1);
}

/* Per sequence: the rows' ranges, then each sequence's parameters from its
 * rows', then the values. */
static int quantize_sequences(encoder *e, const batch *b, step *st)
{
    activations *a = &e->act;
    run_rows(e, b, ranges_task, st, st->cols);
    for (size_t s = 0; s < b->count; s++) {
        size_t t0 = first_token(b, s), t1 = first_token(b, s + 1);
        float lo = a->row_lo[t0], hi = a->row_hi[t0], scale;
        int32_t zp;
        for (size_t t = t0 + 1; t < t1; t++) {
            lo = a->row_lo[t] < lo ? a->row_lo[t] : lo;
            hi = a->row_hi[t] > hi ? a->row_hi[t] : hi;
        }
        if (!parameters_of(lo, hi, &scale, &zp))
            return 0;
        for (size_t t = t0; t < t1; t++) {
            a->row_scales[t] = scale;
            a->row_zero_points[t] = zp;
        }
    }
    run_rows(e, b, quantize_rows_task, st, st->cols);
    return !atomic_load(&st->failed);
}

/* The rows of src (tokens x cols) into e->act.quantized and the rows'
 * scales and zero points. */
static encoder_status quantize_rows(encoder *e, const batch *b, const float *src, size_t cols)
{
    step st = {.src = src, .cols = cols};
    if (e->activations == ENCODER_ACTIVATIONS_PER_SEQUENCE)
        return quantize_sequences(e, b, &st) ? ENCODER_OK : ENCODER_ERR_QMM;
    run_rows(e, b, quantize_tokens_task, &st, cols);
    return atomic_load(&st.failed) ? ENCODER_ERR_QMM : ENCODER_OK;
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
    return qmm_plan_run_gemm(p->plan, &d) == QMM_OK ? ENCODER_OK : ENCODER_ERR_QMM;
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

/* A sequence's attention items: (head, query block) pairs. A head's queries
 * split in blocks only where the heads alone leave threads idle, as each item
 * transposes its head's keys. */
static size_t query_block(size_t len, size_t heads, size_t threads)
{
    size_t blocks = (threads + heads - 1) / heads, most = (len + 3) / 4;
    blocks = blocks < most ? blocks : most;
    return ((len + blocks - 1) / blocks + 3) / 4 * 4;
}

static void attention_item(const step *st, size_t item, float *scratch)
{
    const encoder_config *c = &st->e->config;
    const activations *a = &st->e->act;
    size_t lo = 0, hi = st->b->count;
    while (hi - lo > 1) {  /* the sequence whose items hold this one */
        size_t mid = (lo + hi) / 2;
        if (a->first_item[mid] <= item)
            lo = mid;
        else
            hi = mid;
    }
    size_t s = lo;
    size_t h = c->hidden, dh = h / c->heads, ld = 3 * h;
    size_t t0 = first_token(st->b, s), len = first_token(st->b, s + 1) - t0;
    size_t block = query_block(len, c->heads, st->b->threads), blocks = (len + block - 1) / block;
    size_t head = (item - a->first_item[s]) / blocks;
    size_t i0 = (item - a->first_item[s]) % blocks * block;
    size_t rows = len - i0 < block ? len - i0 : block;
    const float *q = a->qkv + t0 * ld + head * dh;
    attention_rows(q + i0 * ld, rows, q + h, q + 2 * h, ld, len, dh, 1.0f / sqrtf((float)dh),
                   a->context + (t0 + i0) * h + head * dh, h, scratch);
}

/* Worker w of st->tasks takes items w, w + tasks, ... with scratch area w. */
static void attention_task(void *context, size_t w)
{
    step *st = context;
    float *scratch = st->e->act.scratch + w * st->e->act.scratch_stride;
    for (size_t item = w; item < st->items; item += st->tasks)
        attention_item(st, item, scratch);
}

static void attention(encoder *e, const batch *b)
{
    activations *a = &e->act;
    size_t heads = e->config.heads, work = 0;
    a->first_item[0] = 0;
    for (size_t s = 0; s < b->count; s++) {
        size_t len = first_token(b, s + 1) - first_token(b, s);
        size_t block = query_block(len, heads, b->threads);
        a->first_item[s + 1] = a->first_item[s] + heads * ((len + block - 1) / block);
        work += len * len;
    }
    step st = {.e = e, .b = b, .items = a->first_item[b->count]};
    /* Below a few hundred thousand multiply-adds, threads cost more than they save. */
    st.tasks = work * e->config.hidden < (1u << 18) ? 1 : b->threads;
    st.tasks = st.tasks < st.items ? st.tasks : st.items;
    qmm_parallel_for(st.tasks, attention_task, &st);
}

static void add_layer_norm_task(void *context, size_t task)
{
    step *st = context;
    activations *a = &st->e->act;
    size_t h = st->e->config.hidden, t0, t1;
    task_range(task, st->tasks, st->b->tokens, &t0, &t1);
    for (size_t t = t0; t < t1; t++)
        float_add_layer_norm(a->x + t * h, a->product + t * h, h, st->norm->weight,
                             st->norm->bias, st->e->config.layer_norm_eps);
}

static void add_layer_norm(encoder *e, const batch *b, const layer_norm *norm)
{
    step st = {.norm = norm};
    run_rows(e, b, add_layer_norm_task, &st, e->config.hidden);
}

static void gelu_task(void *context, size_t task)
{
    step *st = context;
    size_t f = st->e->config.ffn, t0, t1;
    task_range(task, st->tasks, st->b->tokens, &t0, &t1);
    float_gelu(st->e->act.wide + t0 * f, (t1 - t0) * f);
}

static void gelu(encoder *e, const batch *b)
{
    step st = {0};
    run_rows(e, b, gelu_task, &st, e->config.ffn);
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
    *b = (batch){.count = count, .tokens = tokens, .offsets = offsets, .ids = ids + offsets[0],
                 .threads = qmm_get_num_threads()};
    return ENCODER_OK;
}

/* The last hidden state of the batch, in e->act.x. */
static encoder_status run(encoder *e, const batch *b)
{
    encoder_status st = encoder_reserve(&e->act, &e->config, b->tokens, b->threads);
    if (st != ENCODER_OK)
        return st;
    double t = seconds();
    embed_tokens(e, b);
    e->times.rest += seconds() - t;
    for (uint32_t l = 0; l < e->config.layers && st == ENCODER_OK; l++)
        st = run_layer(e, b, &e->layers[l]);
    return st;
}

static void pool_task(void *context, size_t task)
{
    step *st = context;
    const encoder_config *c = &st->e->config;
    size_t h = c->hidden, s0, s1;
    const float *x = st->e->act.x;
    task_range(task, st->tasks, st->b->count, &s0, &s1);
    for (size_t s = s0; s < s1; s++) {
        size_t t0 = first_token(st->b, s), len = first_token(st->b, s + 1) - t0;
        float *v = st->out + s * h;
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

static void pool(encoder *e, const batch *b, float *out)
{
    step st = {.e = e, .b = b, .out = out};
    st.tasks = b->threads < b->count ? b->threads : b->count;
    qmm_parallel_for(st.tasks, pool_task, &st);
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
