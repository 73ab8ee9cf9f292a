/* The encoder's graph recomputed from the model's tensors, independently of
 * the engine: int64 products, double everywhere else but the activations'
 * quantization, which follows DynamicQuantizeLinear in float32 as the engine
 * does (on the reference's own activations, rounded to float). libm's exp,
 * erf and sqrt in double. */
#include "reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct quantized_product {
    const mw_tensor *w, *scale, *zero_point, *bias;
} quantized_product;

static double table_value(const mw_model *m, const char *name, size_t r, size_t c)
{
    const mw_tensor *t = mw_find_const(m, name);
    size_t i = r * t->cols + c;
    if (t->type == MW_F32)
        return ((const float *)t->data)[i];
    char key[64];
    strcpy(key, name);
    strcat(key, ".scale");
    const mw_tensor *s = mw_find_const(m, key);
    strcpy(key, name);
    strcat(key, ".zero_point");
    const mw_tensor *z = mw_find_const(m, key);
    size_t line = s->rows > 1 ? r : 0;
    int32_t q = t->type == MW_U8 ? ((const uint8_t *)t->data)[i] : ((const int8_t *)t->data)[i];
    int32_t zp = z ? ((const int32_t *)z->data)[line] : 0;
    return (double)(q - zp) * ((const float *)s->data)[line];
}

static void layer_norm(double *x, size_t n, const mw_model *m, const char *prefix)
{
    char key[64];
    strcpy(key, prefix);
    strcat(key, ".weight");
    const float *w = mw_find_const(m, key)->data;
    strcpy(key, prefix);
    strcat(key, ".bias");
    const float *b = mw_find_const(m, key)->data;
    double mean = 0, var = 0;
    for (size_t i = 0; i < n; i++)
        mean += x[i];
    mean /= (double)n;
    for (size_t i = 0; i < n; i++)
        var += (x[i] - mean) * (x[i] - mean);
    var /= (double)n;
    double inv = 1.0 / sqrt(var + m->config.layer_norm_eps);
    for (size_t i = 0; i < n; i++)
        x[i] = (x[i] - mean) * inv * w[i] + b[i];
}

/* y (rows x n) = dequantize(DQL(x) . W) + bias, x rows x k, one sequence;
 * per_token: each row of x quantized on its own. */
static void product(const mw_model *m, int layer, const char *name, const double *x,
                    size_t rows, double *y, int per_token)
{
    if (per_token && rows > 1) {
        for (size_t i = 0; i < rows; i++) {
            const mw_tensor *w;
            char key[64];
            snprintf(key, sizeof key, "layer.%d.%s", layer, name);
            w = mw_find_const(m, key);
            product(m, layer, name, x + i * w->rows, 1, y + i * w->cols, 0);
        }
        return;
    }
    char key[64], sub[80];
    snprintf(key, sizeof key, "layer.%d.%s", layer, name);
    const mw_tensor *w = mw_find_const(m, key);
    snprintf(sub, sizeof sub, "%s.scale", key);
    const mw_tensor *ws = mw_find_const(m, sub);
    snprintf(sub, sizeof sub, "%s.zero_point", key);
    const mw_tensor *wz = mw_find_const(m, sub);
    snprintf(sub, sizeof sub, "%s.bias", key);
    const float *bias = mw_find_const(m, sub)->data;
    size_t k = w->rows, n = w->cols;
    float lo = 0.0f, hi = 0.0f;
    for (size_t i = 0; i < rows * k; i++) {
        float v = (float)x[i];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    float scale = (hi - lo) / 255.0f;
    int32_t zp = 0;
    if (scale > 0.0f) {
        float z = 0.0f - lo / scale;
        z = z < 0.0f ? 0.0f : z > 255.0f ? 255.0f : z;
        zp = (int32_t)nearbyintf(z);
    }
    int32_t *q = malloc(rows * k * sizeof *q);
    for (size_t i = 0; i < rows * k; i++) {
        float v = scale > 0.0f ? nearbyintf((float)x[i] / scale) + (float)zp : 0.0f;
        q[i] = (int32_t)(v < 0.0f ? 0.0f : v > 255.0f ? 255.0f : v) - zp;
    }
    for (size_t i = 0; i < rows; i++) {
        for (size_t j = 0; j < n; j++) {
            int64_t acc = 0;
            int32_t wzp = wz ? ((const int32_t *)wz->data)[wz->cols > 1 ? j : 0] : 0;
            for (size_t p = 0; p < k; p++) {
                size_t at = p * n + j;
                int32_t wv = w->type == MW_U8 ? ((const uint8_t *)w->data)[at]
                                              : ((const int8_t *)w->data)[at];
                acc += (int64_t)q[i * k + p] * (wv - wzp);
            }
            double wscale = ((const float *)ws->data)[ws->cols > 1 ? j : 0];
            y[i * n + j] = (double)acc * scale * wscale + bias[j];
        }
    }
    free(q);
}

static void attention(const mw_model *m, const double *q, const double *k, const double *v,
                      size_t len, double *ctx)
{
    size_t h = m->config.hidden, dh = h / m->config.heads;
    double *p = malloc(len * sizeof *p);
    for (size_t head = 0; head < m->config.heads; head++) {
        for (size_t i = 0; i < len; i++) {
            double max = -INFINITY, sum = 0;
            for (size_t j = 0; j < len; j++) {
                double s = 0;
                for (size_t d = 0; d < dh; d++)
                    s += q[i * h + head * dh + d] * k[j * h + head * dh + d];
                p[j] = s / sqrt((double)dh);
                max = p[j] > max ? p[j] : max;
            }
            for (size_t j = 0; j < len; j++)
                sum += p[j] = exp(p[j] - max);
            for (size_t d = 0; d < dh; d++) {
                double acc = 0;
                for (size_t j = 0; j < len; j++)
                    acc += p[j] / sum * v[j * h + head * dh + d];
                ctx[i * h + head * dh + d] = acc;
            }
        }
    }
    free(p);
}

/* One sequence's last hidden state. */
static void sequence(const mw_model *m, const int32_t *ids, size_t len, double *x,
                     int per_token)
{
    const encoder_config *c = &m->config;
    size_t h = c->hidden, f = c->ffn;
    double *q = malloc(len * h * sizeof *q), *k = malloc(len * h * sizeof *k),
           *v = malloc(len * h * sizeof *v), *ctx = malloc(len * h * sizeof *ctx),
           *wide = malloc(len * f * sizeof *wide), *y = malloc(len * h * sizeof *y);
    for (size_t t = 0; t < len; t++) {
        for (size_t j = 0; j < h; j++)
            x[t * h + j] = table_value(m, "embeddings.word", (size_t)ids[t], j) +
                           table_value(m, "embeddings.token_type", 0, j) +
                           table_value(m, "embeddings.position", t, j);
        layer_norm(x + t * h, h, m, "embeddings.norm");
    }
    for (int l = 0; l < (int)c->layers; l++) {
        char key[64];
        product(m, l, "query", x, len, q, per_token);
        product(m, l, "key", x, len, k, per_token);
        product(m, l, "value", x, len, v, per_token);
        attention(m, q, k, v, len, ctx);
        product(m, l, "attention_output", ctx, len, y, per_token);
        snprintf(key, sizeof key, "layer.%d.attention_norm", l);
        for (size_t t = 0; t < len; t++) {
            for (size_t j = 0; j < h; j++)
                x[t * h + j] += y[t * h + j];
            layer_norm(x + t * h, h, m, key);
        }
        product(m, l, "intermediate", x, len, wide, per_token);
        for (size_t i = 0; i < len * f; i++)
            wide[i] = 0.5 * wide[i] * (1.0 + erf(wide[i] / sqrt(2.0)));
        product(m, l, "output", wide, len, y, per_token);
        snprintf(key, sizeof key, "layer.%d.output_norm", l);
        for (size_t t = 0; t < len; t++) {
            for (size_t j = 0; j < h; j++)
                x[t * h + j] += y[t * h + j];
            layer_norm(x + t * h, h, m, key);
        }
    }
    free(q);
    free(k);
    free(v);
    free(ctx);
    free(wide);
    free(y);
}

void reference_hidden_states(const mw_model *m, int per_token, size_t count,
                             const size_t *offsets, const int32_t *ids, double *out)
{
    for (size_t s = 0; s < count; s++)
        sequence(m, ids + offsets[s], offsets[s + 1] - offsets[s],
                 out + (offsets[s] - offsets[0]) * m->config.hidden, per_token);
}

void reference_embed(const mw_model *m, int per_token, size_t count, const size_t *offsets,
                     const int32_t *ids, double *out)
{
    size_t h = m->config.hidden, tokens = offsets[count] - offsets[0];
    double *x = malloc(tokens * h * sizeof *x);
    reference_hidden_states(m, per_token, count, offsets, ids, x);
    for (size_t s = 0; s < count; s++) {
        size_t t0 = offsets[s] - offsets[0], len = offsets[s + 1] - offsets[s];
        double *e = out + s * h, norm = 0;
        for (size_t j = 0; j < h; j++) {
            e[j] = 0;
            for (size_t t = 0; t < (m->config.pooling == ENCODER_POOL_MEAN ? len : 1); t++)
                e[j] += x[(t0 + t) * h + j];
            if (m->config.pooling == ENCODER_POOL_MEAN)
                e[j] /= (double)len;
            norm += e[j] * e[j];
        }
        norm = sqrt(norm);
        for (size_t j = 0; m->config.normalize && j < h; j++)
            e[j] /= norm > 1e-12 ? norm : 1e-12;
    }
    free(x);
}
