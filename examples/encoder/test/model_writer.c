#include "model_writer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rng {
    uint64_t state;
} rng;

/* splitmix64: the same numbers on every machine. */
static uint64_t next(rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1), 24 bits: exact in float. */
static float unit(rng *r)
{
    return (float)(next(r) >> 40) / 16777216.0f;
}

/* a then b into out (size bytes), cut short if need be: names stay short. */
static void join(char *out, size_t size, const char *a, const char *b)
{
    size_t na = strlen(a) < size - 1 ? strlen(a) : size - 1;
    size_t nb = strlen(b) < size - 1 - na ? strlen(b) : size - 1 - na;
    memcpy(out, a, na);
    memcpy(out + na, b, nb);
    out[na + nb] = 0;
}

static mw_tensor *add(mw_model *m, const char *name, uint32_t type, uint32_t rows, uint32_t cols)
{
    static const size_t sizes[] = {4, 1, 1, 4};
    mw_tensor *t = &m->tensors[m->count++];
    size_t len = strlen(name) < sizeof t->name ? strlen(name) : sizeof t->name - 1;
    memcpy(t->name, name, len);
    t->name[len] = 0;
    t->type = type;
    t->rows = rows;
    t->cols = cols;
    t->data = calloc((size_t)rows * cols, sizes[type]);
    return t;
}

static void add_f32(mw_model *m, rng *r, const char *name, uint32_t rows, uint32_t cols,
                    float center, float spread)
{
    float *v = add(m, name, MW_F32, rows, cols)->data;
    for (size_t i = 0; i < (size_t)rows * cols; i++)
        v[i] = center + spread * (unit(r) - 0.5f);
}

static void add_quantization(mw_model *m, rng *r, const char *name, uint32_t rows, uint32_t cols,
                             float scale, int32_t zero_point)
{
    char key[96];
    join(key, sizeof key, name, ".scale");
    float *s = add(m, key, MW_F32, rows, cols)->data;
    for (size_t i = 0; i < (size_t)rows * cols; i++)
        s[i] = scale * (0.75f + 0.5f * unit(r));
    if (zero_point != 0) {
        join(key, sizeof key, name, ".zero_point");
        int32_t *z = add(m, key, MW_I32, rows, cols)->data;
        for (size_t i = 0; i < (size_t)rows * cols; i++)
            z[i] = zero_point;
    }
}

static void add_table(mw_model *m, rng *r, const char *name, uint32_t rows, uint32_t cols,
                      mw_embeddings kind)
{
    if (kind == MW_EMBEDDINGS_F32) {
        add_f32(m, r, name, rows, cols, 0.0f, 1.0f);
        return;
    }
    int u8 = kind == MW_EMBEDDINGS_U8_PER_TENSOR;
    uint8_t *q = add(m, name, u8 ? MW_U8 : MW_I8, rows, cols)->data;
    for (size_t i = 0; i < (size_t)rows * cols; i++)
        q[i] = u8 ? (uint8_t)(next(r) >> 56) : (uint8_t)(int8_t)((int)(next(r) % 255) - 127);
    add_quantization(m, r, name, u8 ? 1 : rows, 1, 0.004f, u8 ? 131 : 0);
}

static void add_product(mw_model *m, rng *r, const char *name, uint32_t k, uint32_t n,
                        mw_weights kind)
{
    char key[96];
    int u8 = kind == MW_WEIGHTS_U8_PER_TENSOR;
    uint8_t *q = add(m, name, u8 ? MW_U8 : MW_I8, k, n)->data;
    for (size_t i = 0; i < (size_t)k * n; i++)
        q[i] = u8 ? (uint8_t)(next(r) >> 56) : (uint8_t)(int8_t)((int)(next(r) % 255) - 127);
    /* Outputs of about unit size from inputs of unit size. */
    float scale = 2.0f / (127.0f * sqrtf((float)k));
    add_quantization(m, r, name, 1, u8 ? 1 : n, scale, u8 ? 119 : 0);
    join(key, sizeof key, name, ".bias");
    add_f32(m, r, key, 1, n, 0.0f, 0.2f);
}

static void add_norm(mw_model *m, rng *r, const char *prefix, uint32_t n)
{
    char key[96];
    join(key, sizeof key, prefix, ".weight");
    add_f32(m, r, key, 1, n, 1.0f, 0.4f);
    join(key, sizeof key, prefix, ".bias");
    add_f32(m, r, key, 1, n, 0.0f, 0.2f);
}

static void add_vocab(mw_model *m, uint32_t vocab)
{
    size_t bytes = 0;
    char line[32];
    for (uint32_t i = 0; i < vocab; i++)
        bytes += (size_t)snprintf(line, sizeof line, "tok%u", i) + (i + 1 < vocab);
    char *text = add(m, "vocab", MW_U8, 1, (uint32_t)bytes)->data;
    for (uint32_t i = 0; i < vocab; i++) {
        size_t n = (size_t)snprintf(line, sizeof line, i + 1 < vocab ? "tok%u\n" : "tok%u", i);
        memcpy(text, line, n);
        text += n;
    }
}

void mw_random(mw_model *m, const encoder_config *c, mw_weights weights,
               mw_embeddings embeddings, uint64_t seed)
{
    rng r = {seed};
    static const char *const names[] = {"query", "key", "value", "attention_output",
                                        "intermediate", "output"};
    m->config = *c;
    m->count = 0;
    add_table(m, &r, "embeddings.word", c->vocab, c->hidden, embeddings);
    add_table(m, &r, "embeddings.position", c->max_positions, c->hidden, embeddings);
    add_table(m, &r, "embeddings.token_type", c->type_vocab, c->hidden, embeddings);
    add_norm(m, &r, "embeddings.norm", c->hidden);
    for (uint32_t l = 0; l < c->layers; l++) {
        char key[96];
        for (int p = 0; p < 6; p++) {
            uint32_t k = p == 5 ? c->ffn : c->hidden, n = p == 4 ? c->ffn : c->hidden;
            snprintf(key, sizeof key, "layer.%u.%s", l, names[p]);
            add_product(m, &r, key, k, n, weights);
        }
        snprintf(key, sizeof key, "layer.%u.attention_norm", l);
        add_norm(m, &r, key, c->hidden);
        snprintf(key, sizeof key, "layer.%u.output_norm", l);
        add_norm(m, &r, key, c->hidden);
    }
    add_vocab(m, c->vocab);
}

void mw_free(mw_model *m)
{
    for (size_t i = 0; i < m->count; i++)
        free(m->tensors[i].data);
    m->count = 0;
}

mw_tensor *mw_find(mw_model *m, const char *name)
{
    for (size_t i = 0; i < m->count; i++)
        if (strcmp(m->tensors[i].name, name) == 0)
            return &m->tensors[i];
    return NULL;
}

const mw_tensor *mw_find_const(const mw_model *m, const char *name)
{
    return mw_find((mw_model *)m, name);
}

int mw_remove(mw_model *m, const char *name)
{
    mw_tensor *t = mw_find(m, name);
    if (t == NULL)
        return 0;
    free(t->data);
    *t = m->tensors[--m->count];
    return 1;
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

static size_t align64(size_t n)
{
    return (n + 63) / 64 * 64;
}

void mw_reseal(unsigned char *bytes, size_t size)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < size - 8; i++)
        h = (h ^ bytes[i]) * 0x100000001b3u;
    put64(bytes + size - 8, h);
}

unsigned char *mw_serialize(const mw_model *m, size_t *size)
{
    static const size_t sizes[] = {4, 1, 1, 4};
    const encoder_config *c = &m->config;
    size_t at = align64(96 + 64 * m->count);
    for (size_t i = 0; i < m->count; i++)
        at = align64(at + (size_t)m->tensors[i].rows * m->tensors[i].cols *
                              sizes[m->tensors[i].type]);
    *size = at + 8;
    unsigned char *b = calloc(*size, 1);
    memcpy(b, "qmm-bert", 8);
    put32(b + 8, 1);
    put32(b + 12, (uint32_t)m->count);
    uint32_t eps;
    memcpy(&eps, &c->layer_norm_eps, sizeof eps);
    const uint32_t words[17] = {c->layers, c->hidden, c->heads, c->ffn, c->vocab,
                                c->max_positions, c->type_vocab, c->pooling, c->normalize,
                                c->activation, eps, c->lowercase, c->max_tokens, c->cls_id,
                                c->sep_id, c->pad_id, c->unk_id};
    for (int i = 0; i < 17; i++)
        put32(b + 16 + 4 * i, words[i]);
    at = align64(96 + 64 * m->count);
    for (size_t i = 0; i < m->count; i++) {
        const mw_tensor *t = &m->tensors[i];
        unsigned char *e = b + 96 + 64 * i;
        memcpy(e, t->name, strlen(t->name));
        put32(e + 40, t->type);
        put32(e + 44, t->rows);
        put32(e + 48, t->cols);
        put64(e + 56, at);
        size_t bytes = (size_t)t->rows * t->cols * sizes[t->type];
        memcpy(b + at, t->data, bytes);
        at = align64(at + bytes);
    }
    mw_reseal(b, *size);
    return b;
}

int mw_write(const char *path, const unsigned char *bytes, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return 0;
    int ok = fwrite(bytes, 1, size, f) == size;
    return fclose(f) == 0 && ok;
}
