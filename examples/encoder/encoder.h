/*
 * A BERT-family sentence encoder (all-MiniLM-L6-v2 and its kin) on qmm's
 * public API alone, as an inference engine would use qmm: the int8 recipe of
 * ONNX Runtime's quantize_dynamic, weights packed once into weights-B plans,
 * everything else in plain C.
 *
 * The recipe, per weight product y = x.W + b: x quantized to uint8 as ONNX's
 * DynamicQuantizeLinear does (qmm_quantize_*), each token's row on its own
 * (the default: per-row zero points and scales cost qmm's stage nothing, and
 * keep every all-MiniLM-L6-v2 embedding within cosine 0.997 of the float
 * model's) or each sequence's rows together (exactly ONNX Runtime's graph run
 * on one sequence, within 0.987), the int32 sums exact, then
 * ((float)acc * x_scale) * w_scale[j] + b[j] as qmm's float output stage.
 * The attention products, LayerNorm, GELU (erf form), softmax, pooling and
 * normalisation are float.
 *
 * The same bits on every kernel, thread count and CPU: the integer products
 * are exact, and every float step here is fixed operation by operation (no
 * implicit contraction into fused multiply-adds, the attention's written as
 * fmaf, reductions in one order whatever the vector width or the thread
 * split, exp and erf of our own). Precondition, as
 * for qmm's float stages: the default floating-point environment (round to
 * nearest even, no flush-to-zero) on every thread.
 *
 * A sequence's embedding depends on its own tokens alone: sequences are not
 * padded, and each one's activations are quantized on their own, so a
 * sentence embeds to the same bits alone or in any batch.
 */
#ifndef QMM_ENCODER_H
#define QMM_ENCODER_H

#include <stddef.h>
#include <stdint.h>

#include <qmm/qmm.h>

typedef enum encoder_status {
    ENCODER_OK = 0,
    ENCODER_ERR_IO = 1,       /* the file cannot be opened or read */
    ENCODER_ERR_FORMAT = 2,   /* not a valid weight file (FORMAT.md): truncated, corrupt,
                                 mismatched */
    ENCODER_ERR_ARG = 3,      /* bad arguments: a token id out of range, a sequence too long, ... */
    ENCODER_ERR_NOMEM = 4,
    ENCODER_ERR_QMM = 5,      /* a qmm call failed (its message under QMM_VERBOSE=1) */
} encoder_status;

const char *encoder_status_str(encoder_status s);

typedef enum encoder_pooling { ENCODER_POOL_MEAN = 0, ENCODER_POOL_CLS = 1 } encoder_pooling;

/* The model's configuration, as the weight file gives it (FORMAT.md). */
typedef struct encoder_config {
    uint32_t layers, hidden, heads, ffn, vocab, max_positions, type_vocab;
    uint32_t pooling;      /* encoder_pooling */
    uint32_t normalize;    /* 1: the pooled vector is L2-normalised */
    uint32_t activation;   /* 0: gelu, the erf form */
    float layer_norm_eps;
    uint32_t lowercase;
    uint32_t max_tokens;   /* the tokenizer's truncation, [CLS] and [SEP] included */
    uint32_t cls_id, sep_id, pad_id, unk_id;
} encoder_config;

typedef struct encoder encoder;

/* Loads a weight file. On failure *out is NULL and, when why is not NULL,
 * why holds a one-line reason (why_size bytes at most, NUL included). */
encoder_status encoder_load(const char *path, encoder **out, char *why, size_t why_size);
void encoder_free(encoder *e);

const encoder_config *encoder_get_config(const encoder *e);

/* How activations are quantized before each weight product: one scale and
 * zero point per token (row), or per sequence as ONNX Runtime's
 * DynamicQuantizeLinear does on a batch of one. */
typedef enum encoder_activations {
    ENCODER_ACTIVATIONS_PER_TOKEN = 0,
    ENCODER_ACTIVATIONS_PER_SEQUENCE = 1,
} encoder_activations;

/* ENCODER_ERR_ARG for a value not named above. The default: per token. */
encoder_status encoder_set_activations(encoder *e, encoder_activations a);

/* The WordPiece vocabulary, tokens separated by '\n' (token i on line i),
 * *bytes long and not NUL-terminated; NULL when the file has none. */
const char *encoder_vocab(const encoder *e, size_t *bytes);

/* Embeds `count` sequences of token ids ([CLS] and [SEP] included, token
 * type 0): sequence s is ids[offsets[s]] .. ids[offsets[s+1] - 1], 1 to
 * max_positions long (max_tokens is where the tokenizer truncates text).
 * out receives count x hidden floats, row-major. Runs on qmm's thread count
 * (qmm_set_num_threads). Not to be called on one encoder from two threads
 * at once (it keeps its activations). On failure out is untouched. */
encoder_status encoder_embed(encoder *e, size_t count, const size_t *offsets, const int32_t *ids,
                             float *out);

/* The same, the last hidden state instead: offsets[count] x hidden floats,
 * the tokens in order. */
encoder_status encoder_hidden_states(encoder *e, size_t count, const size_t *offsets,
                                     const int32_t *ids, float *out);

/* Wall-clock seconds spent so far in each part of the calls above. */
typedef struct encoder_times {
    double products;    /* activation quantization and qmm's weight products */
    double attention;   /* Q.K^T, softmax and P.V in float */
    double rest;        /* embeddings, residuals, LayerNorm, GELU, pooling */
} encoder_times;
encoder_times encoder_get_times(const encoder *e);
void encoder_reset_times(encoder *e);

/* Peak resident set size of the process, in bytes (0 where unknown). */
size_t encoder_peak_rss(void);

#endif
