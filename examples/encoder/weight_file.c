#include "weight_file.h"

#include <stdint.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char magic[8] = {'q', 'm', 'm', '-', 'b', 'e', 'r', 't'};
enum { FORMAT_VERSION = 1 };

void wf_say(wf_why why, const char *fmt, ...)
{
    if (why.text == NULL || why.size == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why.text, why.size, fmt, ap);
    va_end(ap);
}

size_t wf_type_size(wf_type t)
{
    static const size_t sizes[WF_TYPE_COUNT] = {
        [WF_F32] = 4, [WF_I8] = 1, [WF_U8] = 1, [WF_I32] = 4,
    };
    return sizes[t];
}

static uint32_t u32_at(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t u64_at(const unsigned char *p)
{
    return (uint64_t)u32_at(p) | (uint64_t)u32_at(p + 4) << 32;
}

uint64_t wf_fnv1a64(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3u;
    return h;
}

static encoder_status read_all(weight_file *wf, const char *path, wf_why why)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        wf_say(why, "%s: cannot open", path);
        return ENCODER_ERR_IO;
    }
    encoder_status st = ENCODER_ERR_IO;
    struct stat info;
    if (fstat(fileno(f), &info) != 0 || !S_ISREG(info.st_mode)) {
        wf_say(why, "%s: not a regular file", path);
        goto out;
    }
    if ((uintmax_t)info.st_size > SIZE_MAX) {
        wf_say(why, "%s: too large", path);
        goto out;
    }
    wf->size = (size_t)info.st_size;
    wf->bytes = malloc(wf->size ? wf->size : 1);
    if (wf->bytes == NULL) {
        wf_say(why, "%s: no memory for %zu bytes", path, wf->size);
        st = ENCODER_ERR_NOMEM;
        goto out;
    }
    if (fread(wf->bytes, 1, wf->size, f) != wf->size) {
        wf_say(why, "%s: read error", path);
        goto out;
    }
    st = ENCODER_OK;
out:
    fclose(f);
    return st;
}

/* The configuration's limits: every size arithmetic below stays far from
 * overflow in size_t, and a nonsense value is named. */
static encoder_status check_config(const encoder_config *c, wf_why why)
{
    const struct {
        const char *name;
        uint32_t value, lo, hi;
    } fields[] = {
        {"layers", c->layers, 1, 1024},
        {"hidden", c->hidden, 1, 1u << 16},
        {"heads", c->heads, 1, c->hidden},
        {"ffn", c->ffn, 1, 1u << 18},
        {"vocab", c->vocab, 1, 1u << 24},
        {"max_positions", c->max_positions, 1, 1u << 16},
        {"type_vocab", c->type_vocab, 1, 1u << 10},
        {"pooling", c->pooling, ENCODER_POOL_MEAN, ENCODER_POOL_CLS},
        {"normalize", c->normalize, 0, 1},
        {"activation", c->activation, 0, 0},
        {"lowercase", c->lowercase, 0, 1},
        {"max_tokens", c->max_tokens, 1, c->max_positions},
        {"cls_id", c->cls_id, 0, c->vocab - 1},
        {"sep_id", c->sep_id, 0, c->vocab - 1},
        {"pad_id", c->pad_id, 0, c->vocab - 1},
        {"unk_id", c->unk_id, 0, c->vocab - 1},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (fields[i].value < fields[i].lo || fields[i].value > fields[i].hi) {
            wf_say(why, "configuration: %s = %u, outside [%u, %u]", fields[i].name,
                   fields[i].value, fields[i].lo, fields[i].hi);
            return ENCODER_ERR_FORMAT;
        }
    }
    if (c->hidden % c->heads != 0) {
        wf_say(why, "configuration: hidden %u is not a multiple of heads %u", c->hidden, c->heads);
        return ENCODER_ERR_FORMAT;
    }
    if (!(c->layer_norm_eps >= 0.0f && c->layer_norm_eps < 1.0f)) {
        wf_say(why, "configuration: LayerNorm epsilon %g outside [0, 1)", c->layer_norm_eps);
        return ENCODER_ERR_FORMAT;
    }
    return ENCODER_OK;
}

static void read_config(encoder_config *c, const unsigned char *p)
{
    uint32_t w[20];
    for (int i = 0; i < 20; i++)
        w[i] = u32_at(p + 4 * i);
    float eps;
    memcpy(&eps, &w[10], sizeof eps);
    *c = (encoder_config){
        .layers = w[0], .hidden = w[1], .heads = w[2], .ffn = w[3], .vocab = w[4],
        .max_positions = w[5], .type_vocab = w[6], .pooling = w[7], .normalize = w[8],
        .activation = w[9], .layer_norm_eps = eps, .lowercase = w[11], .max_tokens = w[12],
        .cls_id = w[13], .sep_id = w[14], .pad_id = w[15], .unk_id = w[16],
    };
}

static encoder_status read_directory(weight_file *wf, wf_why why)
{
    size_t data_start = WF_HEADER_BYTES + wf->count * WF_ENTRY_BYTES, data_end = wf->size - 8;
    for (size_t i = 0; i < wf->count; i++) {
        const unsigned char *e = wf->bytes + WF_HEADER_BYTES + i * WF_ENTRY_BYTES;
        if (memchr(e, 0, WF_NAME_BYTES) == NULL || e[0] == 0) {
            wf_say(why, "tensor %zu: its name is empty or not NUL-terminated", i);
            return ENCODER_ERR_FORMAT;
        }
        wf_tensor *t = &wf->tensors[i];
        t->name = (const char *)e;
        uint32_t type = u32_at(e + 40), rows = u32_at(e + 44), cols = u32_at(e + 48);
        uint64_t offset = u64_at(e + 56);
        if (type >= WF_TYPE_COUNT || rows == 0 || cols == 0) {
            wf_say(why, "tensor %s: type %u or shape %u x %u invalid", t->name, type, rows, cols);
            return ENCODER_ERR_FORMAT;
        }
        /* rows and cols are below 2^32: the byte count fits in 2^66 only, so
         * it is checked in two steps. */
        uint64_t elements = (uint64_t)rows * cols, bytes = elements * wf_type_size(type);
        if (elements > (uint64_t)data_end || offset % WF_ALIGN != 0 || offset < data_start ||
            offset > data_end || bytes > data_end - offset) {
            wf_say(why, "tensor %s: %u x %u at offset %llu is outside the file's %zu data bytes "
                   "or misaligned", t->name, rows, cols, (unsigned long long)offset, data_end);
            return ENCODER_ERR_FORMAT;
        }
        t->type = (wf_type)type;
        t->rows = rows;
        t->cols = cols;
        t->data = wf->bytes + offset;
        for (size_t j = 0; j < i; j++) {
            if (strcmp(wf->tensors[j].name, t->name) == 0) {
                wf_say(why, "tensor %s appears twice", t->name);
                return ENCODER_ERR_FORMAT;
            }
        }
    }
    return ENCODER_OK;
}

static int by_offset(const void *x, const void *y)
{
    const wf_tensor *a = *(const wf_tensor *const *)x, *b = *(const wf_tensor *const *)y;
    return (a->data > b->data) - (a->data < b->data);
}

/* No two tensors share a byte. */
static encoder_status check_disjoint(const weight_file *wf, wf_why why)
{
    const wf_tensor **order = malloc(wf->count * sizeof *order);
    if (order == NULL) {
        wf_say(why, "no memory for the tensor directory");
        return ENCODER_ERR_NOMEM;
    }
    for (size_t i = 0; i < wf->count; i++)
        order[i] = &wf->tensors[i];
    qsort(order, wf->count, sizeof *order, by_offset);
    encoder_status st = ENCODER_OK;
    for (size_t i = 1; i < wf->count && st == ENCODER_OK; i++) {
        const wf_tensor *a = order[i - 1];
        if ((const unsigned char *)a->data + a->rows * a->cols * wf_type_size(a->type) >
            (const unsigned char *)order[i]->data) {
            wf_say(why, "tensors %s and %s overlap", a->name, order[i]->name);
            st = ENCODER_ERR_FORMAT;
        }
    }
    free(order);
    return st;
}

encoder_status wf_open(weight_file *wf, const char *path, wf_why why)
{
    *wf = (weight_file){0};
    encoder_status st = read_all(wf, path, why);
    if (st != ENCODER_OK)
        goto fail;
    st = ENCODER_ERR_FORMAT;
    if (wf->size < WF_HEADER_BYTES + 8 || memcmp(wf->bytes, magic, sizeof magic) != 0) {
        wf_say(why, "%s: not a qmm-encode weight file (no magic \"qmm-bert\")", path);
        goto fail;
    }
    uint32_t version = u32_at(wf->bytes + 8);
    if (version != FORMAT_VERSION) {
        wf_say(why, "%s: format version %u, this program reads %u", path, version, FORMAT_VERSION);
        goto fail;
    }
    wf->count = u32_at(wf->bytes + 12);
    if (wf->count == 0 || wf->count > WF_MAX_TENSORS ||
        WF_HEADER_BYTES + wf->count * WF_ENTRY_BYTES > wf->size - 8) {
        wf_say(why, "%s: %zu tensors do not fit in its %zu bytes (truncated?)", path, wf->count,
               wf->size);
        goto fail;
    }
    uint64_t sum = u64_at(wf->bytes + wf->size - 8);
    if (wf_fnv1a64(wf->bytes, wf->size - 8) != sum) {
        wf_say(why, "%s: checksum mismatch (truncated or corrupt)", path);
        goto fail;
    }
    read_config(&wf->config, wf->bytes + 16);
    st = check_config(&wf->config, why);
    if (st != ENCODER_OK)
        goto fail;
    wf->tensors = calloc(wf->count, sizeof *wf->tensors);
    if (wf->tensors == NULL) {
        st = ENCODER_ERR_NOMEM;
        wf_say(why, "no memory for the tensor directory");
        goto fail;
    }
    st = read_directory(wf, why);
    if (st == ENCODER_OK)
        st = check_disjoint(wf, why);
    if (st != ENCODER_OK)
        goto fail;
    return ENCODER_OK;
fail:
    wf_close(wf);
    return st;
}

void wf_close(weight_file *wf)
{
    free(wf->bytes);
    free(wf->tensors);
    *wf = (weight_file){0};
}

const wf_tensor *wf_find(const weight_file *wf, const char *name)
{
    for (size_t i = 0; i < wf->count; i++)
        if (strcmp(wf->tensors[i].name, name) == 0)
            return &wf->tensors[i];
    return NULL;
}

encoder_status wf_get(const weight_file *wf, const char *name, unsigned types, size_t rows,
                      size_t cols, const wf_tensor **out, wf_why why)
{
    static const char *const type_names[WF_TYPE_COUNT] = {"f32", "i8", "u8", "i32"};
    const wf_tensor *t = wf_find(wf, name);
    if (t == NULL) {
        wf_say(why, "tensor %s is missing", name);
        return ENCODER_ERR_FORMAT;
    }
    if (!(types >> t->type & 1u)) {
        wf_say(why, "tensor %s: type %s not expected here", name, type_names[t->type]);
        return ENCODER_ERR_FORMAT;
    }
    if (t->rows != rows || t->cols != cols) {
        wf_say(why, "tensor %s: %zu x %zu, the configuration says %zu x %zu", name, t->rows,
               t->cols, rows, cols);
        return ENCODER_ERR_FORMAT;
    }
    *out = t;
    return ENCODER_OK;
}
