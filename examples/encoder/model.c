/* Loading: the weight file's tensors checked against its configuration,
 * copied or packed, and the file freed. */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TYPE_BIT(t) (1u << (t))

static const char *const product_names[] = {"query", "key", "value", "attention_output",
                                            "intermediate", "output"};

const char *encoder_status_str(encoder_status s)
{
    static const char *const text[] = {
        [ENCODER_OK] = "ok",
        [ENCODER_ERR_IO] = "cannot read the file",
        [ENCODER_ERR_FORMAT] = "not a valid weight file",
        [ENCODER_ERR_ARG] = "invalid argument",
        [ENCODER_ERR_NOMEM] = "out of memory",
        [ENCODER_ERR_QMM] = "a qmm call failed",
    };
    return (unsigned)s < sizeof text / sizeof text[0] ? text[s] : "unknown status";
}

static void *copy_of(const void *src, size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p != NULL)
        memcpy(p, src, bytes);
    return p;
}

static int zero_point_in_range(wf_type type, int32_t zp)
{
    return type == WF_U8 ? zp >= 0 && zp <= 255 : zp >= -128 && zp <= 127;
}

/* name.scale and name.zero_point of a quantized tensor: 1 x 1, or `count`
 * values shaped rows x cols; expanded to `count` values in *scales and
 * *zero_points (the zero points NULL when the file has none). */
static encoder_status read_quantization(const weight_file *wf, const char *name, wf_type type,
                                        size_t rows, size_t cols, size_t count, float **scales,
                                        int32_t **zero_points, int *per_line, wf_why why)
{
    char key[WF_NAME_BYTES + 16];
    const wf_tensor *s, *z;
    snprintf(key, sizeof key, "%s.scale", name);
    s = wf_find(wf, key);
    if (s == NULL || s->type != WF_F32 ||
        !((s->rows == 1 && s->cols == 1) || (s->rows == rows && s->cols == cols))) {
        wf_say(why, "%s: missing, not f32, or neither 1 x 1 nor %zu x %zu", key, rows, cols);
        return ENCODER_ERR_FORMAT;
    }
    snprintf(key, sizeof key, "%s.zero_point", name);
    z = wf_find(wf, key);
    if (z != NULL && (z->type != WF_I32 || z->rows != s->rows || z->cols != s->cols)) {
        wf_say(why, "%s: not i32, or not shaped as its scale", key);
        return ENCODER_ERR_FORMAT;
    }
    size_t given = s->rows * s->cols;
    *per_line = given > 1;
    *scales = malloc(count * sizeof **scales);
    *zero_points = z ? malloc(count * sizeof **zero_points) : NULL;
    if (*scales == NULL || (z && *zero_points == NULL))
        return ENCODER_ERR_NOMEM;
    const float *sv = s->data;
    const int32_t *zv = z ? z->data : NULL;
    for (size_t i = 0; i < count; i++) {
        float scale = sv[given > 1 ? i : 0];
        if (!isfinite(scale) || scale < 0.0f) {
            wf_say(why, "%s.scale: %g is not a finite scale >= 0", name, scale);
            return ENCODER_ERR_FORMAT;
        }
        (*scales)[i] = scale;
        if (zv) {
            int32_t zp = zv[given > 1 ? i : 0];
            if (!zero_point_in_range(type, zp)) {
                wf_say(why, "%s.zero_point: %d outside its type's range", name, zp);
                return ENCODER_ERR_FORMAT;
            }
            (*zero_points)[i] = zp;
        }
    }
    return ENCODER_OK;
}

static encoder_status load_table(const weight_file *wf, const char *name, size_t rows,
                                 size_t cols, embedding_table *t, wf_why why)
{
    const wf_tensor *w;
    encoder_status st = wf_get(wf, name, TYPE_BIT(WF_F32) | TYPE_BIT(WF_I8) | TYPE_BIT(WF_U8),
                               rows, cols, &w, why);
    if (st != ENCODER_OK)
        return st;
    t->type = w->type;
    t->rows = rows;
    t->cols = cols;
    t->data = copy_of(w->data, rows * cols * wf_type_size(w->type));
    if (t->data == NULL)
        return ENCODER_ERR_NOMEM;
    if (w->type == WF_F32)
        return ENCODER_OK;
    st = read_quantization(wf, name, w->type, rows, 1, rows, &t->scales, &t->zero_points,
                           &t->per_row, why);
    return st;
}

static encoder_status load_vector(const weight_file *wf, const char *name, size_t n, float **out,
                                  wf_why why)
{
    const wf_tensor *t;
    encoder_status st = wf_get(wf, name, TYPE_BIT(WF_F32), 1, n, &t, why);
    if (st != ENCODER_OK)
        return st;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(((const float *)t->data)[i])) {
            wf_say(why, "tensor %s: element %zu is not finite", name, i);
            return ENCODER_ERR_FORMAT;
        }
    }
    *out = copy_of(t->data, n * sizeof(float));
    return *out ? ENCODER_OK : ENCODER_ERR_NOMEM;
}

static encoder_status load_norm(const weight_file *wf, const char *prefix, size_t n,
                                layer_norm *norm, wf_why why)
{
    char key[WF_NAME_BYTES + 16];
    snprintf(key, sizeof key, "%s.weight", prefix);
    encoder_status st = load_vector(wf, key, n, &norm->weight, why);
    if (st != ENCODER_OK)
        return st;
    snprintf(key, sizeof key, "%s.bias", prefix);
    return load_vector(wf, key, n, &norm->bias, why);
}

/* Products side by side sharing one input: parts[p] is layer.L.<names[p]>,
 * k x widths[p]; packed as one k x sum(widths) product. */
static encoder_status load_product(const weight_file *wf, int layer, const char *const *names,
                                   const size_t *widths, size_t parts, size_t k,
                                   weight_product *prod, wf_why why)
{
    size_t n = 0;
    for (size_t p = 0; p < parts; p++)
        n += widths[p];
    prod->k = k;
    prod->n = n;
    prod->col_scales = malloc(n * sizeof(float));
    prod->bias = malloc(n * sizeof(float));
    int32_t *zero_points = calloc(n, sizeof *zero_points);
    int8_t *weights = malloc(k * n);
    encoder_status st = ENCODER_ERR_NOMEM;
    wf_type type = WF_I8;
    int any_zero_point = 0;
    if (prod->col_scales == NULL || prod->bias == NULL || zero_points == NULL || weights == NULL)
        goto out;
    for (size_t p = 0, col = 0; p < parts; col += widths[p], p++) {
        char name[WF_NAME_BYTES], key[WF_NAME_BYTES + 16];
        snprintf(name, sizeof name, "layer.%d.%s", layer, names[p]);
        const wf_tensor *w, *bias;
        st = wf_get(wf, name, TYPE_BIT(WF_I8) | TYPE_BIT(WF_U8), k, widths[p], &w, why);
        if (st != ENCODER_OK)
            goto out;
        if (p > 0 && w->type != type) {
            wf_say(why, "%s: its type differs from layer.%d.%s's, whose input it shares", name,
                   layer, names[0]);
            st = ENCODER_ERR_FORMAT;
            goto out;
        }
        type = w->type;
        for (size_t r = 0; r < k; r++)
            memcpy(weights + r * n + col, (const int8_t *)w->data + r * widths[p], widths[p]);
        float *scales;
        int32_t *zps;
        int per_col;
        st = read_quantization(wf, name, w->type, 1, widths[p], widths[p], &scales, &zps,
                               &per_col, why);
        if (st == ENCODER_OK) {
            memcpy(prod->col_scales + col, scales, widths[p] * sizeof *scales);
            if (zps) {
                memcpy(zero_points + col, zps, widths[p] * sizeof *zps);
                for (size_t j = 0; j < widths[p]; j++)
                    any_zero_point |= zps[j] != 0;
            }
        }
        free(scales);
        free(zps);
        if (st != ENCODER_OK)
            goto out;
        snprintf(key, sizeof key, "%s.bias", name);
        st = wf_get(wf, key, TYPE_BIT(WF_F32), 1, widths[p], &bias, why);
        if (st != ENCODER_OK)
            goto out;
        memcpy(prod->bias + col, bias->data, widths[p] * sizeof(float));
        for (size_t j = 0; j < widths[p]; j++) {
            if (!isfinite(prod->bias[col + j])) {
                wf_say(why, "%s: bias %zu is not finite", name, j);
                st = ENCODER_ERR_FORMAT;
                goto out;
            }
        }
    }
    prod->weight_type = type == WF_U8 ? QMM_TYPE_U8 : QMM_TYPE_I8;
    qmm_gemm_desc d = {
        .m = QMM_SYMBOLIC, .n = n, .k = k,
        .a = {.type = QMM_TYPE_U8},
        .b = {.type = prod->weight_type, .data = weights,
              .rs = (ptrdiff_t)n, .cs = 1,
              .zero_point = {.per = any_zero_point ? QMM_PER_COL : QMM_PER_NONE,
                             .values = zero_points}},
        .c = {.type = QMM_TYPE_F32},
    };
    qmm_status qst = qmm_plan_create_gemm(&prod->plan, &d, QMM_WEIGHTS_B);
    if (qst != QMM_OK) {
        wf_say(why, "layer.%d.%s: qmm_plan_create_gemm: %s", layer, names[0], qmm_status_str(qst));
        st = qst == QMM_ERR_NO_MEMORY ? ENCODER_ERR_NOMEM : ENCODER_ERR_QMM;
    }
out:
    free(weights);
    free(zero_points);
    return st;
}

static encoder_status load_layer(const weight_file *wf, int l, encoder_layer *layer, wf_why why)
{
    const encoder_config *c = &wf->config;
    const size_t h = c->hidden, f = c->ffn, qkv_widths[3] = {h, h, h};
    char key[WF_NAME_BYTES];
    encoder_status st = load_product(wf, l, product_names, qkv_widths, 3, h, &layer->qkv, why);
    if (st == ENCODER_OK)
        st = load_product(wf, l, product_names + 3, &h, 1, h, &layer->attention_output, why);
    if (st == ENCODER_OK)
        st = load_product(wf, l, product_names + 4, &f, 1, h, &layer->intermediate, why);
    if (st == ENCODER_OK)
        st = load_product(wf, l, product_names + 5, &h, 1, f, &layer->output, why);
    snprintf(key, sizeof key, "layer.%d.attention_norm", l);
    if (st == ENCODER_OK)
        st = load_norm(wf, key, h, &layer->attention_norm, why);
    snprintf(key, sizeof key, "layer.%d.output_norm", l);
    if (st == ENCODER_OK)
        st = load_norm(wf, key, h, &layer->output_norm, why);
    return st;
}

/* The vocabulary, if the file has one: exactly vocab lines. */
static encoder_status load_vocab(const weight_file *wf, encoder *e, wf_why why)
{
    const wf_tensor *v = wf_find(wf, "vocab");
    if (v == NULL)
        return ENCODER_OK;
    if (v->type != WF_U8 || v->rows != 1) {
        wf_say(why, "tensor vocab: not u8 of one row");
        return ENCODER_ERR_FORMAT;
    }
    size_t lines = 1;
    for (size_t i = 0; i < v->cols; i++)
        lines += ((const char *)v->data)[i] == '\n';
    if (lines != wf->config.vocab) {
        wf_say(why, "tensor vocab: %zu tokens, the configuration says %u", lines, wf->config.vocab);
        return ENCODER_ERR_FORMAT;
    }
    e->vocab = copy_of(v->data, v->cols);
    e->vocab_bytes = v->cols;
    return e->vocab ? ENCODER_OK : ENCODER_ERR_NOMEM;
}

static encoder_status load_model(const weight_file *wf, encoder *e, wf_why why)
{
    const encoder_config *c = &wf->config;
    e->config = *c;
    encoder_status st = load_table(wf, "embeddings.word", c->vocab, c->hidden, &e->word, why);
    if (st == ENCODER_OK)
        st = load_table(wf, "embeddings.position", c->max_positions, c->hidden, &e->position, why);
    if (st == ENCODER_OK)
        st = load_table(wf, "embeddings.token_type", c->type_vocab, c->hidden, &e->token_type,
                        why);
    if (st == ENCODER_OK)
        st = load_norm(wf, "embeddings.norm", c->hidden, &e->embedding_norm, why);
    if (st == ENCODER_OK) {
        e->layers = calloc(c->layers, sizeof *e->layers);
        if (e->layers == NULL)
            st = ENCODER_ERR_NOMEM;
    }
    for (uint32_t l = 0; st == ENCODER_OK && l < c->layers; l++)
        st = load_layer(wf, (int)l, &e->layers[l], why);
    if (st == ENCODER_OK)
        st = load_vocab(wf, e, why);
    if (st == ENCODER_ERR_NOMEM)
        wf_say(why, "out of memory while loading");
    return st;
}

encoder_status encoder_load(const char *path, encoder **out, char *why_text, size_t why_size)
{
    wf_why why = {why_text, why_size};
    wf_say(why, "%s", "");
    if (out == NULL || path == NULL) {
        wf_say(why, "NULL path or output");
        return ENCODER_ERR_ARG;
    }
    *out = NULL;
    weight_file wf;
    encoder_status st = wf_open(&wf, path, why);
    if (st != ENCODER_OK)
        return st;
    encoder *e = calloc(1, sizeof *e);
    st = e ? load_model(&wf, e, why) : ENCODER_ERR_NOMEM;
    wf_close(&wf);
    if (st != ENCODER_OK) {
        encoder_free(e);
        return st;
    }
    *out = e;
    return ENCODER_OK;
}

static void free_table(embedding_table *t)
{
    free(t->data);
    free(t->scales);
    free(t->zero_points);
}

static void free_product(weight_product *p)
{
    qmm_plan_destroy(p->plan);
    free(p->col_scales);
    free(p->bias);
}

static void free_norm(layer_norm *n)
{
    free(n->weight);
    free(n->bias);
}

void encoder_free(encoder *e)
{
    if (e == NULL)
        return;
    free_table(&e->word);
    free_table(&e->position);
    free_table(&e->token_type);
    free_norm(&e->embedding_norm);
    for (uint32_t l = 0; e->layers && l < e->config.layers; l++) {
        encoder_layer *layer = &e->layers[l];
        free_product(&layer->qkv);
        free_product(&layer->attention_output);
        free_product(&layer->intermediate);
        free_product(&layer->output);
        free_norm(&layer->attention_norm);
        free_norm(&layer->output_norm);
    }
    free(e->layers);
    free(e->vocab);
    encoder_free_activations(&e->act);
    free(e);
}

const encoder_config *encoder_get_config(const encoder *e)
{
    return &e->config;
}

encoder_status encoder_set_activations(encoder *e, encoder_activations a)
{
    if (e == NULL || (a != ENCODER_ACTIVATIONS_PER_TOKEN && a != ENCODER_ACTIVATIONS_PER_SEQUENCE))
        return ENCODER_ERR_ARG;
    e->activations = a;
    return ENCODER_OK;
}

const char *encoder_vocab(const encoder *e, size_t *bytes)
{
    *bytes = e->vocab_bytes;
    return e->vocab;
}

encoder_times encoder_get_times(const encoder *e)
{
    return e->times;
}

void encoder_reset_times(encoder *e)
{
    e->times = (encoder_times){0};
}
