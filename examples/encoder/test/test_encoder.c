/*
 * The encoder on small random BERT models whose weight files the test writes
 * (model_writer.c), one mode per process:
 *
 *   reference   embeddings and last hidden states against reference.c's
 *               recomputation of the same quantized graph (int64 products,
 *               double elsewhere), within the tolerances below
 *   identity    the same bits on every kernel (each forced in a child), on 1
 *               to 4 threads of OpenMP and of an engine's pool, for each
 *               sequence alone and in a batch, and on every CPU: a hash of all the bits against GOLDEN_HASH, which
 *               x86 natively and arm64 under QEMU must both give
 *   bad-files   truncated, corrupt and mismatched files refused with a reason
 *   bad-input   bad token ids, lengths and pointers refused, the output untouched
 *   print-hash  prints the hash (to set GOLDEN_HASH after a deliberate change)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "encoder.h"
#include "model_writer.h"
#include "reference.h"
#include "support/test_pool.h"
#include "support/testlib.h"

static long checks;
static const char *forced = "the selector's";

/* The bits of every embedding and hidden state of the identity mode, FNV-1a 64. */
#define GOLDEN_HASH 0x1ee89654d5fa5c29u

/* Against the double reference: the engine rounds to float at every step
 * (differences of about 1e-6), and an activation that float rounding moves
 * across a quantization step changes one uint8 input by one (seen: 0.03 in a
 * hidden state, 0.006 in an embedding whose values reach 4). Bounds on the
 * least cosine of each embedding and each token's hidden state to the
 * reference's, and on the largest difference relative to the largest value. */
#define EMBEDDING_COSINE 0.99999
#define HIDDEN_COSINE 0.9999
#define LARGEST_DIFFERENCE 0.01

typedef struct model_case {
    const char *name;
    encoder_config config;
    mw_weights weights;
    mw_embeddings embeddings;
} model_case;

/* Per-channel int8 weights with uint8 embeddings (quantize_dynamic's
 * recipe), head size 16; per-tensor uint8 weights with zero points, float
 * embeddings, [CLS] pooling without normalisation, head size 32; one layer
 * with per-row int8 embeddings and head size 24 (no whole vector block). */
static const model_case cases[] = {
    {"per-channel", {.layers = 2, .hidden = 64, .heads = 4, .ffn = 128, .vocab = 300,
                     .max_positions = 40, .type_vocab = 2, .pooling = ENCODER_POOL_MEAN,
                     .normalize = 1, .layer_norm_eps = 1e-12f, .lowercase = 1, .max_tokens = 40,
                     .cls_id = 2, .sep_id = 3, .pad_id = 0, .unk_id = 1},
     MW_WEIGHTS_I8_PER_CHANNEL, MW_EMBEDDINGS_U8_PER_TENSOR},
    {"per-tensor-cls", {.layers = 2, .hidden = 64, .heads = 2, .ffn = 96, .vocab = 200,
                        .max_positions = 48, .type_vocab = 1, .pooling = ENCODER_POOL_CLS,
                        .normalize = 0, .layer_norm_eps = 1e-5f, .lowercase = 0,
                        .max_tokens = 40, .cls_id = 2, .sep_id = 3, .pad_id = 0, .unk_id = 1},
     MW_WEIGHTS_U8_PER_TENSOR, MW_EMBEDDINGS_F32},
    {"one-layer", {.layers = 1, .hidden = 48, .heads = 2, .ffn = 80, .vocab = 50,
                   .max_positions = 33, .type_vocab = 2, .pooling = ENCODER_POOL_MEAN,
                   .normalize = 1, .layer_norm_eps = 1e-12f, .lowercase = 1, .max_tokens = 33,
                   .cls_id = 2, .sep_id = 3, .pad_id = 0, .unk_id = 1},
     MW_WEIGHTS_I8_PER_CHANNEL, MW_EMBEDDINGS_I8_PER_ROW},
};
enum { CASES = sizeof cases / sizeof cases[0] };

/* A batch of sequences of lengths 1 to max_positions, random ids. */
enum { SEQUENCES = 6 };
typedef struct batch {
    size_t offsets[SEQUENCES + 1];
    int32_t *ids;
} batch;

static batch make_batch(const encoder_config *c, uint64_t seed)
{
    const size_t lengths[SEQUENCES] = {1, 2, 7, 17, c->max_positions - 1, c->max_positions};
    batch b = {.offsets = {0}};
    for (int s = 0; s < SEQUENCES; s++)
        b.offsets[s + 1] = b.offsets[s] + lengths[s];
    b.ids = malloc(b.offsets[SEQUENCES] * sizeof *b.ids);
    test_seed(seed);
    for (size_t t = 0; t < b.offsets[SEQUENCES]; t++)
        b.ids[t] = (int32_t)test_rand_below(c->vocab);
    return b;
}

static char model_path[64];

/* Writes the case's model and loads it. */
static encoder *load_case(const model_case *mc, mw_model *m)
{
    mw_random(m, &mc->config, mc->weights, mc->embeddings, 0x5eed0000u + mc->config.hidden);
    size_t size;
    unsigned char *bytes = mw_serialize(m, &size);
    snprintf(model_path, sizeof model_path, "test_encoder_%ld.qmmw", (long)getpid());
    CHECK(mw_write(model_path, bytes, size), "cannot write %s", model_path);
    free(bytes);
    encoder *e = NULL;
    char why[256];
    encoder_status st = encoder_load(model_path, &e, why, sizeof why);
    CHECK(st == ENCODER_OK, "%s: load: %s: %s", mc->name, encoder_status_str(st), why);
    remove(model_path);
    checks++;
    return e;
}

/* max |a[i] - b[i]| (a NULL: max |b[i]|). A loop of comparisons, not fmax:
 * gcc 12 for arm64 fails (an internal error) vectorizing an fmax reduction. */
static double largest_difference(const float *a, const double *b, size_t n)
{
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((a ? a[i] : 0.0) - b[i]);
        if (d > worst)
            worst = d;
    }
    return worst;
}

/* The least cosine between rows of a and b (rows x n). */
static double least_cosine(const float *a, const double *b, size_t rows, size_t n)
{
    double least = 1;
    for (size_t r = 0; r < rows; r++) {
        double ab = 0, aa = 0, bb = 0;
        for (size_t j = 0; j < n; j++) {
            ab += a[r * n + j] * b[r * n + j];
            aa += (double)a[r * n + j] * a[r * n + j];
            bb += b[r * n + j] * b[r * n + j];
        }
        double c = ab / sqrt(aa * bb);
        if (c < least)
            least = c;
    }
    return least;
}

static const char *const activation_names[] = {"per token", "per sequence"};

/* The engine's embeddings and hidden states of b against the reference's, with
 * activations quantized per token or per sequence; the embeddings left in emb. */
static void compare_to_reference(const model_case *mc, const mw_model *m, encoder *e,
                                 const batch *b, encoder_activations mode, float *emb,
                                 double *ref_emb)
{
    size_t tokens = b->offsets[SEQUENCES], h = mc->config.hidden;
    float *hid = malloc(tokens * h * sizeof *hid);
    double *ref_hid = malloc(tokens * h * sizeof *ref_hid);
    int per_token = mode == ENCODER_ACTIVATIONS_PER_TOKEN;
    CHECK(encoder_set_activations(e, mode) == ENCODER_OK &&
              encoder_embed(e, SEQUENCES, b->offsets, b->ids, emb) == ENCODER_OK &&
              encoder_hidden_states(e, SEQUENCES, b->offsets, b->ids, hid) == ENCODER_OK,
          "%s: embed", mc->name);
    reference_embed(m, per_token, SEQUENCES, b->offsets, b->ids, ref_emb);
    reference_hidden_states(m, per_token, SEQUENCES, b->offsets, b->ids, ref_hid);
    double worst_emb = largest_difference(emb, ref_emb, SEQUENCES * h),
           worst_hid = largest_difference(hid, ref_hid, tokens * h),
           scale = largest_difference(NULL, ref_emb, SEQUENCES * h),
           cos_emb = least_cosine(emb, ref_emb, SEQUENCES, h),
           cos_hid = least_cosine(hid, ref_hid, tokens, h);
    printf("%s, activations %s: against the reference: least cosine %.9f (embeddings), "
           "%.9f (hidden states); largest difference %.3g (embeddings, of values up to %.3g), "
           "%.3g (hidden states)\n", mc->name, activation_names[mode], cos_emb, cos_hid,
           worst_emb, scale, worst_hid);
    CHECK(cos_emb >= EMBEDDING_COSINE && worst_emb <= LARGEST_DIFFERENCE * scale,
          "%s, activations %s: embeddings differ from the reference", mc->name,
          activation_names[mode]);
    CHECK(cos_hid >= HIDDEN_COSINE, "%s, activations %s: hidden states differ from the reference",
          mc->name, activation_names[mode]);
    checks += 3;
    free(hid);
    free(ref_hid);
}

static void reference_mode(void)
{
    for (int i = 0; i < CASES; i++) {
        mw_model *m = calloc(1, sizeof *m);
        encoder *e = load_case(&cases[i], m);
        if (e == NULL)
            continue;
        const encoder_config *c = &cases[i].config;
        batch b = make_batch(c, 100 + (uint64_t)i);
        size_t h = c->hidden;
        float *emb = malloc(SEQUENCES * h * sizeof *emb);
        double *ref_emb = malloc(SEQUENCES * h * sizeof *ref_emb);
        compare_to_reference(&cases[i], m, e, &b, ENCODER_ACTIVATIONS_PER_SEQUENCE, emb, ref_emb);
        compare_to_reference(&cases[i], m, e, &b, ENCODER_ACTIVATIONS_PER_TOKEN, emb, ref_emb);
        /* The two ways differ: a mode that ignored the setting would be seen. */
        reference_embed(m, 0, SEQUENCES, b.offsets, b.ids, ref_emb);
        double apart = least_cosine(emb, ref_emb, SEQUENCES, h);
        CHECK(apart < 0.9999999, "%s: per token and per sequence give the same embeddings",
              cases[i].name);
        /* The bounds are tight enough to see one weight changed. */
        ((int8_t *)mw_find(m, "layer.0.value")->data)[5] ^= 0x40;
        reference_embed(m, 1, SEQUENCES, b.offsets, b.ids, ref_emb);
        double moved = least_cosine(emb, ref_emb, SEQUENCES, h);
        CHECK(moved < EMBEDDING_COSINE, "%s: a changed weight went unnoticed (cosine %.9f)",
              cases[i].name, moved);
        checks += 2;
        free(emb);
        free(ref_emb);
        free(b.ids);
        encoder_free(e);
        mw_free(m);
        free(m);
    }
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const unsigned char *)p)[i]) * 0x100000001b3u;
    return h;
}

/* Every case's embeddings and hidden states, activations per token and per
 * sequence, on 1 to 4 threads (all equal, and equal sequence by sequence to
 * each sequence embedded alone); returns the hash of their bits. */
static uint64_t identity_hash(void)
{
    uint64_t hash = 0xcbf29ce484222325u;
    for (int i = 0; i < CASES; i++) {
        mw_model *m = calloc(1, sizeof *m);
        encoder *e = load_case(&cases[i], m);
        if (e == NULL)
            continue;
        size_t h = cases[i].config.hidden;
        batch b = make_batch(&cases[i].config, 200 + (uint64_t)i);
        size_t tokens = b.offsets[SEQUENCES];
        float *first = malloc(SEQUENCES * h * sizeof *first),
              *emb = malloc(SEQUENCES * h * sizeof *emb), *hid = malloc(tokens * h * sizeof *hid);
        for (int mode = 0; mode < 2; mode++) {
            encoder_set_activations(e, (encoder_activations)mode);
            for (size_t threads = 1; threads <= TEST_MAX_THREADS; threads++) {
                qmm_set_num_threads(threads);
                CHECK(encoder_embed(e, SEQUENCES, b.offsets, b.ids, threads == 1 ? first : emb) ==
                          ENCODER_OK, "%s: embed on %zu threads", cases[i].name, threads);
                CHECK(threads == 1 || memcmp(first, emb, SEQUENCES * h * sizeof *emb) == 0,
                      "QMM_KERNEL=%s: %s: the embeddings on %zu threads differ from one thread's",
                      forced, cases[i].name, threads);
                checks += 2;
            }
            for (int s = 0; s < SEQUENCES; s++) {
                size_t alone[2] = {0, b.offsets[s + 1] - b.offsets[s]};
                CHECK(encoder_embed(e, 1, alone, b.ids + b.offsets[s], emb) == ENCODER_OK &&
                          memcmp(emb, first + s * h, h * sizeof *emb) == 0,
                      "QMM_KERNEL=%s: %s: sequence %d alone differs from its row in the batch",
                      forced, cases[i].name, s);
                checks++;
            }
            CHECK(encoder_hidden_states(e, SEQUENCES, b.offsets, b.ids, hid) == ENCODER_OK,
                  "%s: hidden states", cases[i].name);
            qmm_set_num_threads(0);
            hash = fnv(hash, first, SEQUENCES * h * sizeof *first);
            hash = fnv(hash, hid, tokens * h * sizeof *hid);
        }
        free(first);
        free(emb);
        free(hid);
        free(b.ids);
        encoder_free(e);
        mw_free(m);
        free(m);
    }
    return hash;
}

static void identity_suite(void)
{
    uint64_t hash = identity_hash();
    CHECK(hash == GOLDEN_HASH,
          "QMM_KERNEL=%s: the bits hash to 0x%016llx, not 0x%016llx: a float step changed, "
          "or this CPU or kernel gives other bits", forced, (unsigned long long)hash,
          (unsigned long long)GOLDEN_HASH);
    checks++;
}

static void identity_mode(void)
{
    test_each_kernel(&checks, &forced, identity_suite, NULL);
    forced = "the selector's";
    identity_suite();
    /* qmm's products and the float parts (qmm_parallel_for) on an engine's
     * pool instead of OpenMP. */
    test_pool pool;
    CHECK(test_pool_start(&pool, 3, 1, NULL), "cannot start the pool");
    qmm_set_parallel_for(test_pool_parallel_for, &pool);
    forced = "the selector's, on an engine's pool";
    identity_suite();
    CHECK(atomic_load(&pool.tasks_run) > 0, "the engine's pool ran no task");
    checks++;
    qmm_set_parallel_for(NULL, NULL);
    test_pool_stop(&pool);
}

static void print_hash_mode(void)
{
    printf("0x%016llx\n", (unsigned long long)identity_hash());
}

/* ---- bad files ----------------------------------------------------------- */

static void expect_refused(const unsigned char *bytes, size_t size, encoder_status want,
                           const char *what)
{
    CHECK(mw_write(model_path, bytes, size), "cannot write %s", model_path);
    encoder *e = (encoder *)&checks;
    char why[256] = "untouched";
    encoder_status st = encoder_load(model_path, &e, why, sizeof why);
    int said = want == ENCODER_OK ? e != NULL : e == NULL && why[0] != 0 &&
                                                    strcmp(why, "untouched") != 0;
    CHECK(st == want && said,
          "%s: %s (%s), expected %s", what, encoder_status_str(st), why,
          encoder_status_str(want));
    if (st == ENCODER_OK)
        encoder_free(e);
    remove(model_path);
    checks++;
}

/* The model with one change made to its tensors, then serialized. */
static void expect_model_refused(const model_case *mc, void (*change)(mw_model *),
                                 const char *what)
{
    mw_model *m = calloc(1, sizeof *m);
    mw_random(m, &mc->config, mc->weights, mc->embeddings, 7);
    change(m);
    size_t size;
    unsigned char *bytes = mw_serialize(m, &size);
    expect_refused(bytes, size, ENCODER_ERR_FORMAT, what);
    free(bytes);
    mw_free(m);
    free(m);
}

static void drop_value_bias(mw_model *m)
{
    mw_remove(m, "layer.1.value.bias");
}
static void drop_position_table(mw_model *m)
{
    mw_remove(m, "embeddings.position");
}
static void wrong_shape(mw_model *m)
{
    mw_find(m, "layer.0.intermediate")->cols = 64;
}
static void wrong_type(mw_model *m)
{
    mw_find(m, "layer.0.output_norm.weight")->type = MW_I32;
}
static void mixed_qkv_types(mw_model *m)
{
    mw_find(m, "layer.0.key")->type = MW_U8;
}
static void nan_scale(mw_model *m)
{
    ((float *)mw_find(m, "layer.1.output.scale")->data)[3] = NAN;
}
static void zero_point_out_of_range(mw_model *m)
{
    ((int32_t *)mw_find(m, "embeddings.word.zero_point")->data)[0] = 256;
}
static void duplicate_name(mw_model *m)
{
    strcpy(mw_find(m, "layer.0.attention_norm.bias")->name, "layer.0.attention_norm.weight");
}
static void short_vocab(mw_model *m)
{
    mw_find(m, "vocab")->cols -= 7; /* "\ntok299" */
}
static void heads_not_dividing(mw_model *m)
{
    m->config.heads = 3;
}
static void too_many_tokens(mw_model *m)
{
    m->config.max_tokens = m->config.max_positions + 1;
}

static void bad_files_mode(void)
{
    const model_case *mc = &cases[0];
    mw_model *m = calloc(1, sizeof *m);
    mw_random(m, &mc->config, mc->weights, mc->embeddings, 7);
    size_t size;
    unsigned char *good = mw_serialize(m, &size), *bytes = malloc(size);
    snprintf(model_path, sizeof model_path, "test_encoder_%ld.qmmw", (long)getpid());

    memcpy(bytes, good, size);
    expect_refused(bytes, size, ENCODER_OK, "the unchanged file");
    encoder *e = (encoder *)&checks;
    CHECK(encoder_load("no/such/file.qmmw", &e, NULL, 0) == ENCODER_ERR_IO && e == NULL,
          "a missing file");
    CHECK(encoder_load(NULL, &e, NULL, 0) == ENCODER_ERR_ARG, "a NULL path");
    CHECK(encoder_load(".", &e, NULL, 0) == ENCODER_ERR_IO && e == NULL, "a directory");
    checks += 3;

    const size_t cuts[] = {0, 7, 95, 96, 100, 96 + 64 * 3, size / 2, size - 9, size - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "the file cut at %zu bytes", cuts[i]);
        expect_refused(good, cuts[i], ENCODER_ERR_FORMAT, what);
    }
    for (size_t at = 17; at < size; at += size / 7) {
        memcpy(bytes, good, size);
        bytes[at] ^= 0x10;
        expect_refused(bytes, size, ENCODER_ERR_FORMAT, "a flipped bit");
    }
    /* Header and directory damage under a valid checksum: the checks beyond it. */
    struct {
        size_t at;
        unsigned char value;
        const char *what;
    } patches[] = {
        {0, 'Q', "a wrong magic"},
        {8, 2, "version 2"},
        {12, 0, "no tensors"},
        {13, 0x10, "more tensors than the file holds"},
        {16, 0, "zero layers"},
        {16 + 4 * 7, 2, "an unknown pooling"},
        {16 + 4 * 9, 1, "an unknown activation"},
        {96 + 40, 9, "an unknown tensor type"},
        {96 + 56, 1, "a misaligned offset"},
        {96 + 63, 0x40, "an offset past the end"},
        {96 + 47, 0x40, "a shape too large"},
    };
    for (size_t i = 0; i < sizeof patches / sizeof patches[0]; i++) {
        memcpy(bytes, good, size);
        bytes[patches[i].at] = patches[i].value;
        mw_reseal(bytes, size);
        expect_refused(bytes, size, ENCODER_ERR_FORMAT, patches[i].what);
    }
    /* The second tensor's data moved onto the first's (same size and type). */
    memcpy(bytes, good, size);
    memcpy(bytes + 96 + 64 + 56, bytes + 96 + 56, 8);
    mw_reseal(bytes, size);
    expect_refused(bytes, size, ENCODER_ERR_FORMAT, "two tensors sharing bytes");
    memcpy(bytes, good, size);
    memset(bytes + 96, 'x', 40);
    mw_reseal(bytes, size);
    expect_refused(bytes, size, ENCODER_ERR_FORMAT, "a name without its NUL");
    expect_model_refused(mc, drop_value_bias, "a missing bias");
    expect_model_refused(mc, drop_position_table, "a missing embedding table");
    expect_model_refused(mc, wrong_shape, "a product of the wrong shape");
    expect_model_refused(mc, wrong_type, "a LayerNorm weight of the wrong type");
    expect_model_refused(mc, mixed_qkv_types, "Q and K of different types");
    expect_model_refused(mc, nan_scale, "a NaN scale");
    expect_model_refused(mc, zero_point_out_of_range, "a zero point out of range");
    expect_model_refused(mc, duplicate_name, "a name twice");
    expect_model_refused(mc, short_vocab, "a vocabulary one token short");
    expect_model_refused(mc, heads_not_dividing, "heads not dividing hidden");
    expect_model_refused(mc, too_many_tokens, "max_tokens beyond the positions");
    free(good);
    free(bytes);
    mw_free(m);
    free(m);
}

/* ---- bad input ----------------------------------------------------------- */

static void bad_input_mode(void)
{
    const model_case *mc = &cases[0];
    const encoder_config *c = &mc->config;
    mw_model *m = calloc(1, sizeof *m);
    encoder *e = load_case(mc, m);
    if (e == NULL)
        return;
    size_t h = c->hidden, n = c->max_positions + 1;
    int32_t *ids = calloc(n, sizeof *ids);
    float *out = malloc(n * h * sizeof *out);
    struct {
        size_t offsets[3];
        int32_t bad_id;
        const char *what;
    } cases_in[] = {
        {{0, 3, 5}, (int32_t)c->vocab, "a token id equal to the vocabulary size"},
        {{0, 3, 5}, -1, "a negative token id"},
        {{0, 3, 3}, 0, "an empty sequence"},
        {{0, c->max_positions + 1, c->max_positions + 1}, 0, "a sequence over max_positions"},
        {{4, 3, 5}, 0, "offsets going back"},
    };
    for (size_t i = 0; i < sizeof cases_in / sizeof cases_in[0]; i++) {
        ids[4] = cases_in[i].bad_id;
        for (size_t j = 0; j < n * h; j++)
            out[j] = 42.0f;
        encoder_status st = encoder_embed(e, 2, cases_in[i].offsets, ids, out);
        encoder_status sh = encoder_hidden_states(e, 2, cases_in[i].offsets, ids, out);
        int untouched = 1;
        for (size_t j = 0; j < n * h; j++)
            untouched &= out[j] == 42.0f;
        CHECK(st == ENCODER_ERR_ARG && sh == ENCODER_ERR_ARG && untouched,
              "%s: %s / %s, output %s", cases_in[i].what, encoder_status_str(st),
              encoder_status_str(sh), untouched ? "untouched" : "written");
        ids[4] = 0;
        checks++;
    }
    size_t offsets[2] = {0, 4};
    CHECK(encoder_embed(e, 1, NULL, ids, out) == ENCODER_ERR_ARG, "NULL offsets");
    CHECK(encoder_embed(e, 1, offsets, NULL, out) == ENCODER_ERR_ARG, "NULL ids");
    CHECK(encoder_embed(e, 1, offsets, ids, NULL) == ENCODER_ERR_ARG, "NULL output");
    CHECK(encoder_embed(NULL, 1, offsets, ids, out) == ENCODER_ERR_ARG, "NULL encoder");
    CHECK(encoder_embed(e, 0, NULL, NULL, NULL) == ENCODER_OK, "no sequences");
    CHECK(encoder_embed(e, 1, offsets, ids, out) == ENCODER_OK, "a good call after bad ones");
    checks += 6;
    free(ids);
    free(out);
    encoder_free(e);
    mw_free(m);
    free(m);
}

int main(int argc, char **argv)
{
    static const test_mode modes[] = {
        {"reference", reference_mode}, {"identity", identity_mode},
        {"bad-files", bad_files_mode}, {"bad-input", bad_input_mode},
        {"print-hash", print_hash_mode},
    };
    return test_mode_main(argc, argv, "test_encoder", modes, sizeof modes / sizeof modes[0],
                          &checks);
}
