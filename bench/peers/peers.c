/*
 * qmm-bench-peers: qmm against oneDNN, XNNPACK, gemmlowp and OpenBLAS on the
 * same operands and shapes, in one process, every library on the same number
 * of threads (--threads N, 1 by default).
 *
 * For each shape C[m×n] = A[m×k]·B[k×n] (random full-range int8, with the
 * extreme product -128·-128 in C(0,0)), every contender is prepared outside
 * the timing (its operands converted to the form it takes: uint8 with an
 * offset, float, transposed), then the repetitions are interleaved: one timed
 * call of each contender per repetition, so that all see the same machine
 * state. Each timed call follows an untimed call of the same contender, so
 * that every one finds the operands (and its own buffers) as warm as the
 * others do: timed cold, the first contender of a repetition would pay for
 * bringing A and B into the caches for all those after it (qmm, first, ran
 * 5-10% slower than the same call right after it on Zen5).
 * Reported: the median time, GOPS (2mnk / time), qmm's speedup over the peer
 * (peer median / qmm one-shot median; for a peer that prepares its weights
 * once, over the qmm plan that packs the same operand once, which the row
 * names) and exactness, the largest |error| of the int32 (or float) result
 * against an exact reference over all of C; for the requantized results
 * (int8 or uint8, no int32 to check), how many of C's entries differ from the
 * peer's that computes the same function, and by how much at most.
 *
 *   qmm             qmm_i8_i32, packing A and B included in every call
 *   qmm plan        qmm_plan_run on a plan whose A was packed once (weights as A)
 *   qmm plan (B packed once)  qmm_plan_gemm on a plan made by qmm_plan_create_gemm
 *                   with QMM_WEIGHTS_B, B packed once (weights as B, as oneDNN's
 *                   matmul takes them), int32 out
 *   qmm s8 (fp32 requant)  qmm_gemm computing XNNPACK qs8 FC's function (below),
 *                   on its operands and orientation: int8, the input's zero point,
 *                   the int32 bias per output channel (C's columns for batch m,
 *                   its rows for batch n), QMM_ROUND_FLOAT with XNNPACK's one
 *                   scale, its output zero point, int8 out (C m×n row-major)
 *   qmm plan s8     the same through qmm_plan_gemm, the weights (B for batch m,
 *                   A for batch n) packed once by qmm_plan_create_gemm
 *   qmm u8 (tflite requant)  qmm_gemm computing gemmlowp's pipeline (below): uint8
 *                   A+128 and B+128 with zero points 128, the bias,
 *                   QMM_ROUND_TFLITE with its multiplier and shift, its output
 *                   zero point and clamp, uint8 out; must equal gemmlowp's bytes
 *   oneDNN s8s8s32  dnnl_gemm_s8s8s32, row-major, no offsets
 *   oneDNN u8s8s32  dnnl_gemm_u8s8s32 on A+128 (uint8) with A offset 128: the same
 *                   product; it is the fastest oneDNN int8 path
 *   oneDNN matmul s8s8s32  the matmul primitive computing the plain product:
 *                   src A, weights B, dst C int32, all row-major (format tag
 *                   ab), no zero points, no scales; created once, outside the
 *                   timing, executed per call (qmm_i8_i32's peer); its
 *                   implementation named
 *   oneDNN matmul s8s8s32 reordered  the same with the weights B in the layout
 *                   oneDNN chooses (format tag any), reordered into it once,
 *                   outside the timing; against qmm plan (B packed once); its
 *                   implementation named, and whether that layout is blocked
 *   oneDNN matmul s8  the matmul primitive computing XNNPACK's function, in its
 *                   orientation and layouts: src and dst zero points, s32 bias,
 *                   output scales per output channel (all XNNPACK's one), s8 dst;
 *                   created once, outside the timing; its implementation named
 *   XNNPACK qs8 FC  xnn fully-connected qs8: input zero point, symmetric weights,
 *                   int32 bias, one float requantization scale (fp32, ties to
 *                   even), output zero point, int8 out over its whole range;
 *                   weights packed when the operator is created, outside the
 *                   timing. The batch is the smaller side: batch m (input A,
 *                   weights B) or batch n (input B^T, weights A)
 *   gemmlowp        uint8 A+128 and B+128 with offsets -128 on both, int32 out
 *   gemmlowp (tflite requant)  the same product through TFLite's output pipeline:
 *                   OutputStageBiasAddition (per output channel, as above),
 *                   OutputStageScaleInt32ByFixedPointAndExponent (TFLite's
 *                   multiplier and exponent for XNNPACK's scale, and the output
 *                   zero point), OutputStageClamp (a fused ReLU: from the zero
 *                   point up), OutputStageSaturatingCastToUint8
 *   OpenBLAS sgemm  cblas_sgemm on the operands as float: the float baseline
 *
 * --threads N (1 to 1024, default 1) gives every library the same N threads:
 * the process re-executes itself with OMP_NUM_THREADS=N and
 * OPENBLAS_NUM_THREADS=N (oneDNN uses OpenMP, whose runtime reads them when it
 * loads), then qmm gets qmm_set_num_threads(N) (its threads are OpenMP's too
 * by default), OpenBLAS openblas_set_num_threads(N), XNNPACK a pthreadpool of
 * N threads (none for N = 1: it then runs on the calling thread) and gemmlowp
 * a context of at most N threads. Each library still decides how many of them
 * a small product is worth.
 *
 * --avx2 limits qmm and oneDNN to AVX2 (QMM_DISABLE=avx512vnni and
 * dnnl_set_max_cpu_isa): the comparison of an AVX2-only CPU, run on a newer one.
 * XNNPACK, gemmlowp and OpenBLAS have no such switch and keep their best code.
 *
 *   qmm-bench-peers [--shape MxKxN]... [--reps N] [--threads N] [--avx2]
 */
#include <dnnl.h>
#include <math.h>
#include <pthreadpool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xnnpack.h>

#include "../workers.h"
#include "gemmlowp_peer.h"
#include "qmm/qmm.h"

/* From OpenBLAS's cblas.h; declared here so that any cblas.h will do. */
enum { ROW_MAJOR = 101, NO_TRANS = 111 };
void cblas_sgemm(int order, int transa, int transb, int m, int n, int k, float alpha,
                 const float *a, int lda, const float *b, int ldb, float beta, float *c,
                 int ldc);
void openblas_set_num_threads(int num_threads);

typedef struct shape {
    size_t m, k, n;
    const char *what;
} shape;

static const shape default_shapes[] = {
    {1024, 1024, 1024, "square"},
    {128, 384, 384, "MiniLM tokens x in x out"},
    {128, 384, 1152, "MiniLM tokens x in x out"},
    {128, 384, 1536, "MiniLM tokens x in x out"},
    {128, 1536, 384, "MiniLM tokens x in x out"},
    {384, 384, 128, "MiniLM weights as A (out x in x tokens)"},
    {1152, 384, 128, "MiniLM weights as A (out x in x tokens)"},
    {1536, 384, 128, "MiniLM weights as A (out x in x tokens)"},
    {384, 1536, 128, "MiniLM weights as A (out x in x tokens)"},
    {1024, 1024, 1, "GEMV"},
};

/* XNNPACK's thread pool: NULL for one thread (XNNPACK then runs on the
 * calling thread), else pthreadpool_create(threads) in main. */
static pthreadpool_t xnn_pool;

/* ---- operands ----------------------------------------------------------- */

/* Zero points of the requantized contenders, nonzero so that the corrections
 * they take are part of what is compared: XNNPACK qs8 FC's input and output
 * ones (its weights are symmetric), and the uint8 output's of gemmlowp's
 * pipeline, whose outputs are clamped from it up (a fused ReLU, as TFLite
 * clamps them). */
enum { S8_INPUT_ZP = 3, S8_OUTPUT_ZP = -5, U8_OUTPUT_ZP = 128, U8_OUTPUT_MIN = U8_OUTPUT_ZP };

/* What the requantized contenders share, per shape, so that those compared
 * compute the same function. The output channels (the weights' rows) lie on
 * C's larger side, XNNPACK's batch on the smaller one: C's columns when
 * m <= n (weights B, batch m), else its rows (weights A, batch n). */
typedef struct quant {
    int weights_b;               /* the weights are B (channels: C's columns), else A */
    size_t batch, channels;
    int32_t *bias;               /* one per channel */
    float out_scale;             /* XNNPACK's output scale, its input scales being 1 */
    int32_t multiplier, shift;   /* 1 / out_scale as TFLite's QuantizeMultiplier gives it */
} quant;

typedef struct operands {
    shape s;
    int8_t *a, *b, *bt;       /* A m×k, B k×n, B^T n×k */
    uint8_t *a_u8, *b_u8;     /* A+128, B+128 */
    float *af, *bf;
    int32_t *ref;             /* exact C */
    quant q;
} operands;

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static int8_t random_i8(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (int8_t)(int)((rng_state >> 24) % 256 - 128);
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "qmm-bench-peers: out of memory\n");
        exit(1);
    }
    return p;
}

/* TFLite's QuantizeMultiplier: real = multiplier * 2^(shift - 31), with the
 * multiplier in [2^30, 2^31), rounded half away from zero. */
static void quantize_multiplier(double real, int32_t *multiplier, int32_t *shift)
{
    int exponent;
    double fraction = frexp(real, &exponent);  /* in [0.5, 1) */
    long long fixed = llround(fraction * 2147483648.0);
    if (fixed == 2147483648LL) {  /* rounded up to 1 */
        fixed /= 2;
        exponent++;
    }
    *multiplier = (int32_t)fixed;
    *shift = exponent;
}

static quant make_quant(shape s)
{
    quant q = {.weights_b = s.m <= s.n};
    q.batch = q.weights_b ? s.m : s.n;
    q.channels = q.weights_b ? s.n : s.m;
    q.bias = xmalloc(q.channels * sizeof *q.bias);
    /* Over ±2^17, the sums' own scale; from a hash of the channel, not from the
     * operands' generator, which would change the operands of later shapes. */
    for (size_t c = 0; c < q.channels; c++)
        q.bias[c] = (int32_t)(((uint32_t)c + 1) * 2654435761u >> 14) - (1 << 17);
    /* Scale the int32 sums (standard deviation about 5461·sqrt(k)) into int8. */
    q.out_scale = 4.0f * 5461.0f * sqrtf((float)s.k) / 127.0f;
    quantize_multiplier(1.0 / q.out_scale, &q.multiplier, &q.shift);
    return q;
}

static operands make_operands(shape s)
{
    operands o = {.s = s};
    size_t m = s.m, k = s.k, n = s.n;
    o.a = xmalloc(m * k);
    o.b = xmalloc(k * n);
    o.bt = xmalloc(k * n);
    o.a_u8 = xmalloc(m * k);
    o.b_u8 = xmalloc(k * n);
    o.af = xmalloc(m * k * sizeof(float));
    o.bf = xmalloc(k * n * sizeof(float));
    o.ref = xmalloc(m * n * sizeof(int32_t));
    for (size_t i = 0; i < m * k; i++)
        o.a[i] = random_i8();
    for (size_t i = 0; i < k * n; i++)
        o.b[i] = random_i8();
    o.a[0] = o.b[0] = INT8_MIN;
    for (size_t i = 0; i < m * k; i++) {
        o.a_u8[i] = (uint8_t)(o.a[i] + 128);
        o.af[i] = o.a[i];
    }
    for (size_t p = 0; p < k; p++)
        for (size_t j = 0; j < n; j++) {
            int8_t v = o.b[p * n + j];
            o.bt[j * k + p] = v;
            o.b_u8[p * n + j] = (uint8_t)(v + 128);
            o.bf[p * n + j] = v;
        }
    /* The exact product, naively (int64 sums: no wrap-around at these sizes). */
    int64_t *row = xmalloc(n * sizeof *row);
    for (size_t i = 0; i < m; i++) {
        memset(row, 0, n * sizeof *row);
        for (size_t p = 0; p < k; p++) {
            int64_t av = o.a[i * k + p];
            const int8_t *bp = o.b + p * n;
            for (size_t j = 0; j < n; j++)
                row[j] += av * bp[j];
        }
        for (size_t j = 0; j < n; j++)
            o.ref[i * n + j] = (int32_t)row[j];
    }
    free(row);
    o.q = make_quant(s);
    return o;
}

static void free_operands(operands *o)
{
    free(o->a);
    free(o->b);
    free(o->bt);
    free(o->a_u8);
    free(o->b_u8);
    free(o->af);
    free(o->bf);
    free(o->ref);
    free(o->q.bias);
}

/* ---- contenders --------------------------------------------------------- */

typedef struct contender contender;

/* What the last column says of w's result: its exactness, or its agreement
 * with `peer`'s (the contender that computes the same function). */
typedef void verdict_fn(const contender *w, const contender *peer, const operands *o,
                        char *text, size_t size);

struct contender {
    const char *name;
    int (*setup)(contender *, const operands *);   /* 0: cannot run this shape */
    int (*run)(contender *, const operands *);     /* the timed call; 0 on failure */
    verdict_fn *verdict;
    size_t peer;                                    /* the verdict's peer, by index */
    /* The qmm contender its speedup is over, by index: qmm one-shot (0), but
     * for a peer that prepares its weights once the qmm plan that packs the
     * same operand once. */
    size_t against;
    void (*teardown)(contender *);
    void *state;
    int ready;                                      /* set up, and every run succeeded */
    int32_t *c;
    float *cf;
    int8_t *c8;
    uint8_t *cu8;
};

/* Largest |result - exact| over C, the result read from c (int32) or cf. */
static double max_error(const contender *w, const operands *o, int from_float)
{
    double worst = 0;
    for (size_t i = 0; i < o->s.m * o->s.n; i++) {
        double got = from_float ? (double)w->cf[i] : (double)w->c[i];
        double e = fabs(got - (double)o->ref[i]);
        worst = e > worst ? e : worst;
    }
    return worst;
}

static void exactness(double err, char *text, size_t size)
{
    snprintf(text, size, "%.0f%s", err, err == 0 ? " (exact)" : "");
}

static void int32_verdict(const contender *w, const contender *peer, const operands *o,
                          char *text, size_t size)
{
    (void)peer;
    exactness(max_error(w, o, 0), text, size);
}

static void float_verdict(const contender *w, const contender *peer, const operands *o,
                          char *text, size_t size)
{
    (void)peer;
    exactness(max_error(w, o, 1), text, size);
}

static void s8_verdict(const contender *w, const contender *peer, const operands *o,
                       char *text, size_t size)
{
    (void)w, (void)peer, (void)o;
    snprintf(text, size, "requantized (int8 out)");
}

static void u8_verdict(const contender *w, const contender *peer, const operands *o,
                       char *text, size_t size)
{
    (void)w, (void)peer, (void)o;
    snprintf(text, size, "requantized (uint8 out)");
}

/* Index of C(i, j) in a [batch][channel] buffer: XNNPACK's output layout. */
static size_t batch_major(const operands *o, size_t i, size_t j)
{
    return o->q.weights_b ? i * o->s.n + j : j * o->s.m + i;
}

/* The entries of a requantized result that differ from its peer's: how many,
 * and the largest |difference|. */
typedef struct tally {
    size_t differ;
    int worst;
} tally;

static void tally_one(tally *t, int mine, int theirs)
{
    int d = abs(mine - theirs);
    t->differ += d != 0;
    t->worst = d > t->worst ? d : t->worst;
}

static void tally_text(tally t, const contender *peer, const operands *o, char *text,
                       size_t size)
{
    snprintf(text, size, "vs %s: %zu of %zu differ, max %d", peer->name, t.differ,
             o->s.m * o->s.n, t.worst);
}

/* 1, with the reason in text, when the peer has no result to compare with. */
static int peer_missing(const contender *peer, char *text, size_t size)
{
    if (!peer->ready)
        snprintf(text, size, "no %s result to compare", peer->name);
    return !peer->ready;
}

/* An int8 result against XNNPACK's (the peer), whose fp32 requantization is
 * the same function. got is C m×n row-major, or laid out as XNNPACK's output
 * when got_batch_major. */
static void s8_agreement(const int8_t *got, int got_batch_major, const contender *peer,
                         const operands *o, char *text, size_t size)
{
    if (peer_missing(peer, text, size))
        return;
    tally t = {0, 0};
    for (size_t i = 0; i < o->s.m; i++)
        for (size_t j = 0; j < o->s.n; j++) {
            size_t there = batch_major(o, i, j);
            tally_one(&t, got[got_batch_major ? there : i * o->s.n + j], peer->c8[there]);
        }
    tally_text(t, peer, o, text, size);
}

static void vs_xnnpack(const contender *w, const contender *peer, const operands *o,
                       char *text, size_t size)
{
    s8_agreement(w->c8, 0, peer, o, text, size);
}

/* qmm's uint8 result against gemmlowp's pipeline (the peer): the same bytes,
 * both C m×n row-major. */
static void vs_gemmlowp(const contender *w, const contender *peer, const operands *o,
                        char *text, size_t size)
{
    if (peer_missing(peer, text, size))
        return;
    tally t = {0, 0};
    for (size_t i = 0; i < o->s.m * o->s.n; i++)
        tally_one(&t, w->cu8[i], peer->cu8[i]);
    tally_text(t, peer, o, text, size);
}

static int alloc_c(contender *w, const operands *o)
{
    w->c = xmalloc(o->s.m * o->s.n * sizeof *w->c);
    memset(w->c, 0xa5, o->s.m * o->s.n * sizeof *w->c);
    return 1;
}

static int alloc_c8(contender *w, const operands *o)
{
    w->c8 = xmalloc(o->s.m * o->s.n);
    return 1;
}

static int alloc_cu8(contender *w, const operands *o)
{
    w->cu8 = xmalloc(o->s.m * o->s.n);
    return 1;
}

static void free_c(contender *w)
{
    free(w->c);
    free(w->cf);
    free(w->c8);
    free(w->cu8);
    w->c = NULL;
    w->cf = NULL;
    w->c8 = NULL;
    w->cu8 = NULL;
}

/* qmm, one-shot. */
static int qmm_run(contender *w, const operands *o)
{
    shape s = o->s;
    return qmm_i8_i32(s.m, s.n, s.k, o->a, s.k, o->b, s.n, w->c, s.n) == QMM_OK;
}

/* qmm, A packed once in a plan. */
static int qmm_plan_setup(contender *w, const operands *o)
{
    qmm_plan *p;
    alloc_c(w, o);
    if (qmm_plan_create(&p, o->s.m, o->s.n, o->s.k) != QMM_OK)
        return 0;
    if (qmm_plan_pack_a(p, o->a, o->s.k) != QMM_OK) {
        qmm_plan_destroy(p);
        return 0;
    }
    w->state = p;
    return 1;
}
static int qmm_plan_run_one(contender *w, const operands *o)
{
    return qmm_plan_run(w->state, o->s.n, o->b, o->s.n, w->c, o->s.n) == QMM_OK;
}
static void qmm_plan_teardown(contender *w)
{
    qmm_plan_destroy(w->state);
    free_c(w);
}

/* qmm, B packed once in a plan whose weights are B (C = X·W): the operand
 * oneDNN's matmul takes as its weights, and reorders once (dnnl_i32_setup). */
static qmm_gemm_desc i32_desc(const operands *o, int32_t *c)
{
    shape s = o->s;
    qmm_gemm_desc d = {
        .m = s.m, .n = s.n, .k = s.k,
        .a = {.type = QMM_TYPE_I8, .data = o->a, .rs = (ptrdiff_t)s.k, .cs = 1},
        .b = {.type = QMM_TYPE_I8, .data = o->b, .rs = (ptrdiff_t)s.n, .cs = 1},
        .c = {.type = QMM_TYPE_I32, .data = c, .rs = (ptrdiff_t)s.n, .cs = 1},
    };
    return d;
}
static int qmm_plan_b_setup(contender *w, const operands *o)
{
    alloc_c(w, o);
    qmm_gemm_desc d = i32_desc(o, w->c);
    qmm_plan *p;
    if (qmm_plan_create_gemm(&p, &d, QMM_WEIGHTS_B) != QMM_OK)
        return 0;
    w->state = p;
    return 1;
}
static int qmm_plan_b_run(contender *w, const operands *o)
{
    qmm_gemm_desc d = i32_desc(o, w->c);
    return qmm_plan_gemm(w->state, &d) == QMM_OK;
}

/* qmm computing XNNPACK qs8 FC's function (xnn_setup) on the same memory: the
 * weights [out][in] are B^T (weights B) or A (weights A), the input's zero
 * point goes on the other operand, the bias on C's columns or rows; XNNPACK's
 * scale is input_scale * kernel_scale / output_scale in float, 1 / out_scale
 * here, and its clamp the int8 range, qmm's default. C is m×n row-major. */
static qmm_gemm_desc s8_desc(const operands *o, int8_t *c)
{
    shape s = o->s;
    const quant *q = &o->q;
    const qmm_i32_param input_zp = {.per = QMM_PER_MATRIX, .value = S8_INPUT_ZP};
    qmm_gemm_desc d = {
        .m = s.m, .n = s.n, .k = s.k,
        .a = {.type = QMM_TYPE_I8, .data = o->a, .rs = (ptrdiff_t)s.k, .cs = 1},
        .b = {.type = QMM_TYPE_I8, .data = o->bt, .rs = 1, .cs = (ptrdiff_t)s.k},
        .c = {.type = QMM_TYPE_I8, .data = c, .rs = (ptrdiff_t)s.n, .cs = 1,
              .bias = {.per = q->weights_b ? QMM_PER_COL : QMM_PER_ROW, .values = q->bias},
              .requant = {.rounding = QMM_ROUND_FLOAT, .per = QMM_PER_MATRIX,
                          .scale = 1.0f / q->out_scale, .zero_point = S8_OUTPUT_ZP}},
    };
    if (q->weights_b)
        d.a.zero_point = input_zp;
    else
        d.b.zero_point = input_zp;
    return d;
}
static int qmm_s8_run(contender *w, const operands *o)
{
    qmm_gemm_desc d = s8_desc(o, w->c8);
    return qmm_gemm(&d) == QMM_OK;
}

/* The same with the weights packed once, as XNNPACK packs them. */
static int qmm_plan_s8_setup(contender *w, const operands *o)
{
    alloc_c8(w, o);
    qmm_gemm_desc d = s8_desc(o, w->c8);
    qmm_plan *p;
    if (qmm_plan_create_gemm(&p, &d, o->q.weights_b ? QMM_WEIGHTS_B : QMM_WEIGHTS_A) != QMM_OK)
        return 0;
    w->state = p;
    return 1;
}
static int qmm_plan_s8_run(contender *w, const operands *o)
{
    qmm_gemm_desc d = s8_desc(o, w->c8);
    return qmm_plan_gemm(w->state, &d) == QMM_OK;
}

/* qmm computing gemmlowp's pipeline (gemmlowp_requant_run): its uint8
 * operands with zero points 128 (its offsets -128), the bias, TFLite's
 * rounding with its multiplier and shift (gemmlowp's exponent: positive
 * shifts left, as qmm's shift), its output zero point and clamp. */
static int qmm_u8_run(contender *w, const operands *o)
{
    shape s = o->s;
    const quant *q = &o->q;
    const qmm_i32_param zp128 = {.per = QMM_PER_MATRIX, .value = 128};
    qmm_gemm_desc d = {
        .m = s.m, .n = s.n, .k = s.k,
        .a = {.type = QMM_TYPE_U8, .data = o->a_u8, .rs = (ptrdiff_t)s.k, .cs = 1,
              .zero_point = zp128},
        .b = {.type = QMM_TYPE_U8, .data = o->b_u8, .rs = (ptrdiff_t)s.n, .cs = 1,
              .zero_point = zp128},
        .c = {.type = QMM_TYPE_U8, .data = w->cu8, .rs = (ptrdiff_t)s.n, .cs = 1,
              .bias = {.per = q->weights_b ? QMM_PER_COL : QMM_PER_ROW, .values = q->bias},
              .requant = {.rounding = QMM_ROUND_TFLITE, .per = QMM_PER_MATRIX,
                          .multiplier = q->multiplier, .shift = q->shift,
                          .zero_point = U8_OUTPUT_ZP, .clamp = 1, .min = U8_OUTPUT_MIN,
                          .max = 255}},
    };
    return qmm_gemm(&d) == QMM_OK;
}

/* oneDNN. */
static int dnnl_s8_run(contender *w, const operands *o)
{
    shape s = o->s;
    const int32_t co = 0;
    return dnnl_gemm_s8s8s32('N', 'N', 'F', (dnnl_dim_t)s.m, (dnnl_dim_t)s.n, (dnnl_dim_t)s.k,
                             1.0f, o->a, (dnnl_dim_t)s.k, 0, o->b, (dnnl_dim_t)s.n, 0, 0.0f,
                             w->c, (dnnl_dim_t)s.n, &co) == dnnl_success;
}
static int dnnl_u8_run(contender *w, const operands *o)
{
    shape s = o->s;
    const int32_t co = 0;
    return dnnl_gemm_u8s8s32('N', 'N', 'F', (dnnl_dim_t)s.m, (dnnl_dim_t)s.n, (dnnl_dim_t)s.k,
                             1.0f, o->a_u8, (dnnl_dim_t)s.k, 128, o->b, (dnnl_dim_t)s.n, 0,
                             0.0f, w->c, (dnnl_dim_t)s.n, &co) == dnnl_success;
}

/* oneDNN's matmul primitive, created once outside the timing with the memory
 * objects of its operands (on the bench's buffers, or on oneDNN's for weights
 * it reordered), executed per call. */
typedef struct dnnl_mm_state {
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    dnnl_primitive_t matmul;
    dnnl_memory_t src, weights, bias, dst;  /* bias NULL: none */
    char impl[64];  /* the implementation oneDNN picked */
    /* For reordered weights, the layout oneDNN chose for them, in words: its
     * gemm-based implementations (AVX2) keep them row-major, and the reorder
     * is then a copy. */
    const char *layout;
} dnnl_mm_state;

/* A rows×cols descriptor: tag dnnl_ab is row-major, dnnl_ba column-major,
 * dnnl_format_tag_any the layout the primitive prefers. */
static int dnnl_2d(dnnl_memory_desc_t *md, size_t rows, size_t cols, dnnl_data_type_t type,
                   dnnl_format_tag_t tag)
{
    dnnl_dims_t dims = {(dnnl_dim_t)rows, (dnnl_dim_t)cols};
    return dnnl_memory_desc_init_by_tag(md, 2, dims, type, tag) == dnnl_success;
}

/* A matmul contender's state, with its engine and stream; NULL when oneDNN
 * refuses them. In w->state either way, for dnnl_mm_teardown. */
static dnnl_mm_state *dnnl_mm_begin(contender *w)
{
    dnnl_mm_state *x = xmalloc(sizeof *x);
    memset(x, 0, sizeof *x);
    x->layout = "";
    w->state = x;
    if (dnnl_engine_create(&x->engine, dnnl_cpu, 0) != dnnl_success ||
        dnnl_stream_create(&x->stream, x->engine, dnnl_stream_default_flags) != dnnl_success)
        return NULL;
    return x;
}

/* The primitive of pd, and the name of the implementation oneDNN picked,
 * copied: pd, which owns the string, is destroyed after setup. */
static int dnnl_mm_primitive(dnnl_mm_state *x, const_dnnl_primitive_desc_t pd)
{
    const char *impl = NULL;
    int ok = dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success &&
             dnnl_primitive_create(&x->matmul, pd) == dnnl_success;
    snprintf(x->impl, sizeof x->impl, "%s", impl != NULL ? impl : "none");
    return ok;
}

/* A memory object in the layout pd took for `what`, on data: the bench's own
 * buffer, or DNNL_MEMORY_ALLOCATE for one of oneDNN's. */
static dnnl_memory_t dnnl_mm_memory(const_dnnl_primitive_desc_t pd, dnnl_query_t what, int index,
                                    dnnl_engine_t engine, const void *data)
{
    const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(pd, what, index);
    dnnl_memory_t m = NULL;
    if (md == NULL || dnnl_memory_create(&m, md, engine, (void *)data) != dnnl_success)
        return NULL;
    return m;
}

static int dnnl_mm_run(contender *w, const operands *o)
{
    (void)o;
    dnnl_mm_state *x = w->state;
    /* The bias last: without one, the first three are all the arguments. */
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, x->src},
                              {DNNL_ARG_WEIGHTS, x->weights},
                              {DNNL_ARG_DST, x->dst},
                              {DNNL_ARG_BIAS, x->bias}};
    return dnnl_primitive_execute(x->matmul, x->stream, x->bias != NULL ? 4 : 3, args) ==
               dnnl_success &&
           dnnl_stream_wait(x->stream) == dnnl_success;
}

/* verdict, then the implementation oneDNN picked and the layout it chose for
 * reordered weights. */
static void dnnl_mm_named(const contender *w, const char *verdict, char *text, size_t size)
{
    const dnnl_mm_state *x = w->state;
    snprintf(text, size, "%s; %s%s", verdict, x->impl, x->layout);
}

static void dnnl_mm_teardown(contender *w)
{
    dnnl_mm_state *x = w->state;
    if (x != NULL) {
        dnnl_memory_destroy(x->src);
        dnnl_memory_destroy(x->weights);
        dnnl_memory_destroy(x->bias);
        dnnl_memory_destroy(x->dst);
        dnnl_primitive_destroy(x->matmul);
        dnnl_stream_destroy(x->stream);
        dnnl_engine_destroy(x->engine);
        free(x);
    }
    free_c(w);
}

/* The matmul computing C = A·B in int32 as qmm_i8_i32 does: src A, weights
 * B, dst C, no zero points, no scales, no bias. Every operand row-major (tag
 * ab), or the weights with tag any when reordered: oneDNN then chooses their
 * layout, a blocked one, and B is reordered into it once. */
static dnnl_primitive_desc_t dnnl_i32_pd(shape s, int reordered, dnnl_engine_t engine)
{
    dnnl_memory_desc_t src, weights, dst;
    dnnl_matmul_desc_t desc;
    dnnl_primitive_desc_t pd = NULL;
    if (!dnnl_2d(&src, s.m, s.k, dnnl_s8, dnnl_ab) ||
        !dnnl_2d(&weights, s.k, s.n, dnnl_s8, reordered ? dnnl_format_tag_any : dnnl_ab) ||
        !dnnl_2d(&dst, s.m, s.n, dnnl_s32, dnnl_ab) ||
        dnnl_matmul_desc_init(&desc, &src, &weights, NULL, &dst) != dnnl_success ||
        dnnl_primitive_desc_create(&pd, &desc, NULL, engine, NULL) != dnnl_success)
        return NULL;
    return pd;
}

/* B reordered once, by oneDNN's reorder primitive, into a buffer of oneDNN's
 * in the weights layout pd chose. */
static dnnl_memory_t dnnl_reordered_b(const_dnnl_primitive_desc_t pd, dnnl_mm_state *x,
                                      const operands *o)
{
    dnnl_memory_desc_t plain;
    const dnnl_memory_desc_t *blocked = NULL;
    dnnl_memory_t from = NULL,
                  to = dnnl_mm_memory(pd, dnnl_query_weights_md, 0, x->engine,
                                      DNNL_MEMORY_ALLOCATE);
    dnnl_primitive_desc_t rpd = NULL;
    dnnl_primitive_t reorder = NULL;
    int ok = to != NULL && dnnl_2d(&plain, o->s.k, o->s.n, dnnl_s8, dnnl_ab) &&
             dnnl_memory_create(&from, &plain, x->engine, o->b) == dnnl_success &&
             dnnl_memory_get_memory_desc(to, &blocked) == dnnl_success &&
             dnnl_reorder_primitive_desc_create(&rpd, &plain, x->engine, blocked, x->engine,
                                                NULL) == dnnl_success &&
             dnnl_primitive_create(&reorder, rpd) == dnnl_success;
    if (ok) {
        dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
        ok = dnnl_primitive_execute(reorder, x->stream, 2, args) == dnnl_success &&
             dnnl_stream_wait(x->stream) == dnnl_success;
        x->layout = dnnl_memory_desc_equal(blocked, &plain) ? ", weights left row-major"
                                                            : ", weights blocked";
    }
    dnnl_primitive_destroy(reorder);
    dnnl_primitive_desc_destroy(rpd);
    dnnl_memory_destroy(from);
    if (!ok) {
        dnnl_memory_destroy(to);
        to = NULL;
    }
    return to;
}

static int dnnl_i32_setup(contender *w, const operands *o, int reordered)
{
    alloc_c(w, o);
    dnnl_mm_state *x = dnnl_mm_begin(w);
    dnnl_primitive_desc_t pd = NULL;
    int ok = x != NULL && (pd = dnnl_i32_pd(o->s, reordered, x->engine)) != NULL &&
             dnnl_mm_primitive(x, pd) &&
             (x->src = dnnl_mm_memory(pd, dnnl_query_src_md, 0, x->engine, o->a)) != NULL &&
             (x->weights = reordered ? dnnl_reordered_b(pd, x, o)
                                     : dnnl_mm_memory(pd, dnnl_query_weights_md, 0, x->engine,
                                                      o->b)) != NULL &&
             (x->dst = dnnl_mm_memory(pd, dnnl_query_dst_md, 0, x->engine, w->c)) != NULL;
    if (pd != NULL)
        dnnl_primitive_desc_destroy(pd);
    return ok;
}
static int dnnl_i32_plain_setup(contender *w, const operands *o)
{
    return dnnl_i32_setup(w, o, 0);
}
static int dnnl_i32_reordered_setup(contender *w, const operands *o)
{
    return dnnl_i32_setup(w, o, 1);
}
static void dnnl_i32_verdict(const contender *w, const contender *peer, const operands *o,
                             char *text, size_t size)
{
    char exact[48];
    int32_verdict(w, peer, o, exact, sizeof exact);
    dnnl_mm_named(w, exact, text, size);
}

/* The matmul computing XNNPACK qs8 FC's function (xnn_setup) on the same
 * memory, in its orientation: src the input [batch][in], weights its
 * [out][in] read as in × out, the int32 bias, dst [batch][out] int8.
 *
 * The zero points and the requantization as attributes: output scales per
 * output channel (mask: dst's dimension 1), as a model with per-channel
 * weight scales has them, here all XNNPACK's one scale so that the function
 * is the same. oneDNN adds the bias to the sums before it scales, and the dst
 * zero point before it rounds: at a tie, an odd zero point turns the rounding
 * to even into rounding to odd. The src zero point stays an attribute, though
 * oneDNN 2.6 on AVX2 then runs 25 times slower (12 ms instead of 0.46 on
 * 128x384x384): folded into the bias instead (as XNNPACK does), the fast path
 * saturates pairs of products in int16 without VNNI, and 45420 of 49152
 * entries came out different there. */
static dnnl_primitive_attr_t dnnl_mm_attr(const quant *q)
{
    static const int32_t src_zp = S8_INPUT_ZP, dst_zp = S8_OUTPUT_ZP;
    float *scales = xmalloc(q->channels * sizeof *scales);
    for (size_t c = 0; c < q->channels; c++)
        scales[c] = 1.0f / q->out_scale;
    dnnl_primitive_attr_t attr = NULL;
    int ok = dnnl_primitive_attr_create(&attr) == dnnl_success &&
             dnnl_primitive_attr_set_output_scales(attr, (dnnl_dim_t)q->channels, 1 << 1,
                                                   scales) == dnnl_success &&
             dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_SRC, 1, 0, &src_zp) ==
                 dnnl_success &&
             dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_DST, 1, 0, &dst_zp) ==
                 dnnl_success;
    free(scales);  /* the attributes keep a copy */
    if (!ok && attr != NULL) {
        dnnl_primitive_attr_destroy(attr);
        attr = NULL;
    }
    return attr;
}

static dnnl_primitive_desc_t dnnl_mm_pd(const operands *o, dnnl_engine_t engine)
{
    const quant *q = &o->q;
    size_t k = o->s.k;
    dnnl_memory_desc_t src, weights, bias, dst;
    dnnl_matmul_desc_t desc;
    if (!dnnl_2d(&src, q->batch, k, dnnl_s8, dnnl_ab) ||
        !dnnl_2d(&weights, k, q->channels, dnnl_s8, dnnl_ba) ||
        !dnnl_2d(&bias, 1, q->channels, dnnl_s32, dnnl_ab) ||
        !dnnl_2d(&dst, q->batch, q->channels, dnnl_s8, dnnl_ab) ||
        dnnl_matmul_desc_init(&desc, &src, &weights, &bias, &dst) != dnnl_success)
        return NULL;
    dnnl_primitive_attr_t attr = dnnl_mm_attr(q);
    dnnl_primitive_desc_t pd = NULL;
    if (attr == NULL || dnnl_primitive_desc_create(&pd, &desc, attr, engine, NULL) != dnnl_success)
        pd = NULL;
    if (attr != NULL)
        dnnl_primitive_attr_destroy(attr);
    return pd;
}

static int dnnl_mm_setup(contender *w, const operands *o)
{
    const quant *q = &o->q;
    const int8_t *weights = q->weights_b ? o->bt : o->a;  /* [out][in] */
    w->c8 = xmalloc(o->s.m * o->s.n);
    dnnl_mm_state *x = dnnl_mm_begin(w);
    dnnl_primitive_desc_t pd = NULL;
    int ok = x != NULL && (pd = dnnl_mm_pd(o, x->engine)) != NULL &&
             dnnl_mm_primitive(x, pd) &&
             (x->src = dnnl_mm_memory(pd, dnnl_query_src_md, 0, x->engine,
                                      q->weights_b ? o->a : o->bt)) != NULL &&
             (x->weights = dnnl_mm_memory(pd, dnnl_query_weights_md, 0, x->engine, weights)) !=
                 NULL &&
             (x->bias = dnnl_mm_memory(pd, dnnl_query_weights_md, 1, x->engine, q->bias)) !=
                 NULL &&
             (x->dst = dnnl_mm_memory(pd, dnnl_query_dst_md, 0, x->engine, w->c8)) != NULL;
    if (pd != NULL)
        dnnl_primitive_desc_destroy(pd);
    return ok;
}
/* Its dst is laid out as XNNPACK's output. */
static void dnnl_mm_verdict(const contender *w, const contender *peer, const operands *o,
                            char *text, size_t size)
{
    char agreed[96];
    s8_agreement(w->c8, 1, peer, o, agreed, sizeof agreed);
    dnnl_mm_named(w, agreed, text, size);
}

/* XNNPACK: batch on the smaller side (see the top of the file). */
typedef struct xnn_state {
    xnn_operator_t op;
    size_t batch;
    const int8_t *input;
} xnn_state;

static int xnn_setup(contender *w, const operands *o)
{
    static int initialized;
    if (!initialized) {
        if (xnn_initialize(NULL) != xnn_status_success)
            return 0;
        initialized = 1;
    }
    const quant *q = &o->q;
    const int8_t *weights = q->weights_b ? o->bt : o->a;  /* [out][in] */
    xnn_state *x = xmalloc(sizeof *x);
    x->batch = q->batch;
    x->input = q->weights_b ? o->a : o->bt;
    if (xnn_create_fully_connected_nc_qs8(o->s.k, q->channels, o->s.k, q->channels, S8_INPUT_ZP,
                                          1.0f, 1.0f, weights, q->bias, S8_OUTPUT_ZP,
                                          q->out_scale, -128, 127, 0, &x->op) !=
        xnn_status_success) {
        free(x);
        return 0;
    }
    w->c8 = xmalloc(q->batch * q->channels);
    w->state = x;
    return 1;
}
static int xnn_run(contender *w, const operands *o)
{
    (void)o;
    xnn_state *x = w->state;
    return xnn_setup_fully_connected_nc_qs8(x->op, x->batch, x->input, w->c8, xnn_pool) ==
               xnn_status_success &&
           xnn_run_operator(x->op, xnn_pool) == xnn_status_success;
}
static void xnn_teardown(contender *w)
{
    xnn_state *x = w->state;
    if (x != NULL) {
        xnn_delete_operator(x->op);
        free(x);
    }
    free_c(w);
}

/* gemmlowp. */
static int gemmlowp_run(contender *w, const operands *o)
{
    shape s = o->s;
    peer_gemmlowp_u8_i32((int)s.m, (int)s.n, (int)s.k, o->a_u8, -128, o->b_u8, -128, w->c);
    return 1;
}

/* gemmlowp's TFLite-style pipeline, uint8 out (qmm_u8_run computes the same). */
static int gemmlowp_requant_run(contender *w, const operands *o)
{
    shape s = o->s;
    const quant *q = &o->q;
    const peer_gemmlowp_requant r = {
        .bias = q->bias, .bias_per_row = !q->weights_b, .multiplier = q->multiplier,
        .exponent = q->shift, .zero_point = U8_OUTPUT_ZP, .min = U8_OUTPUT_MIN, .max = 255};
    peer_gemmlowp_u8_requant((int)s.m, (int)s.n, (int)s.k, o->a_u8, -128, o->b_u8, -128, &r,
                             w->cu8);
    return 1;
}

/* OpenBLAS. */
static int sgemm_setup(contender *w, const operands *o)
{
    w->cf = xmalloc(o->s.m * o->s.n * sizeof *w->cf);
    return 1;
}
static int sgemm_run(contender *w, const operands *o)
{
    shape s = o->s;
    cblas_sgemm(ROW_MAJOR, NO_TRANS, NO_TRANS, (int)s.m, (int)s.n, (int)s.k, 1.0f, o->af,
                (int)s.k, o->bf, (int)s.n, 0.0f, w->cf, (int)s.n);
    return 1;
}

enum {
    C_QMM, C_QMM_PLAN, C_QMM_PLAN_B, C_QMM_S8, C_QMM_PLAN_S8, C_QMM_U8, C_DNNL_S8, C_DNNL_U8,
    C_DNNL_MATMUL_I32, C_DNNL_MATMUL_I32_REORDERED, C_DNNL_MATMUL, C_XNN, C_GEMMLOWP,
    C_GEMMLOWP_REQUANT, C_SGEMM, CONTENDERS
};
static contender contenders[CONTENDERS] = {
    [C_QMM] = {.name = "qmm", .setup = alloc_c, .run = qmm_run, .verdict = int32_verdict,
               .teardown = free_c},
    [C_QMM_PLAN] = {.name = "qmm plan (A packed once)", .setup = qmm_plan_setup,
                    .run = qmm_plan_run_one, .verdict = int32_verdict,
                    .teardown = qmm_plan_teardown},
    [C_QMM_PLAN_B] = {.name = "qmm plan (B packed once)", .setup = qmm_plan_b_setup,
                      .run = qmm_plan_b_run, .verdict = int32_verdict,
                      .teardown = qmm_plan_teardown},
    [C_QMM_S8] = {.name = "qmm s8 (fp32 requant)", .setup = alloc_c8, .run = qmm_s8_run,
                  .verdict = vs_xnnpack, .peer = C_XNN, .teardown = free_c},
    [C_QMM_PLAN_S8] = {.name = "qmm plan s8", .setup = qmm_plan_s8_setup,
                       .run = qmm_plan_s8_run, .verdict = vs_xnnpack, .peer = C_XNN,
                       .teardown = qmm_plan_teardown},
    [C_QMM_U8] = {.name = "qmm u8 (tflite requant)", .setup = alloc_cu8, .run = qmm_u8_run,
                  .verdict = vs_gemmlowp, .peer = C_GEMMLOWP_REQUANT, .teardown = free_c},
    [C_DNNL_S8] = {.name = "oneDNN s8s8s32", .setup = alloc_c, .run = dnnl_s8_run,
                   .verdict = int32_verdict, .teardown = free_c},
    [C_DNNL_U8] = {.name = "oneDNN u8s8s32", .setup = alloc_c, .run = dnnl_u8_run,
                   .verdict = int32_verdict, .teardown = free_c},
    [C_DNNL_MATMUL_I32] = {.name = "oneDNN matmul s8s8s32", .setup = dnnl_i32_plain_setup,
                           .run = dnnl_mm_run, .verdict = dnnl_i32_verdict,
                           .teardown = dnnl_mm_teardown},
    /* Its weights are B, prepared once as qmm's plan with weights B prepares them. */
    [C_DNNL_MATMUL_I32_REORDERED] = {.name = "oneDNN matmul s8s8s32 reordered",
                                     .setup = dnnl_i32_reordered_setup, .run = dnnl_mm_run,
                                     .verdict = dnnl_i32_verdict, .against = C_QMM_PLAN_B,
                                     .teardown = dnnl_mm_teardown},
    [C_DNNL_MATMUL] = {.name = "oneDNN matmul s8", .setup = dnnl_mm_setup, .run = dnnl_mm_run,
                       .verdict = dnnl_mm_verdict, .peer = C_XNN,
                       .teardown = dnnl_mm_teardown},
    [C_XNN] = {.name = "XNNPACK qs8 FC", .setup = xnn_setup, .run = xnn_run,
               .verdict = s8_verdict, .teardown = xnn_teardown},
    [C_GEMMLOWP] = {.name = "gemmlowp", .setup = alloc_c, .run = gemmlowp_run,
                    .verdict = int32_verdict, .teardown = free_c},
    [C_GEMMLOWP_REQUANT] = {.name = "gemmlowp (tflite requant)", .setup = alloc_cu8,
                            .run = gemmlowp_requant_run, .verdict = u8_verdict,
                            .teardown = free_c},
    [C_SGEMM] = {.name = "OpenBLAS sgemm", .setup = sgemm_setup, .run = sgemm_run,
                 .verdict = float_verdict, .teardown = free_c},
};

/* ---- timing ------------------------------------------------------------- */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, size_t count)
{
    qsort(v, count, sizeof *v, compare_double);
    return count % 2 ? v[count / 2] : (v[count / 2 - 1] + v[count / 2]) / 2;
}

/* With more than one thread, each contender's first (untimed) call waits for
 * the workers of the library before it to go idle: ../workers.c tells why,
 * and why the wait polls without sleeping. */
static size_t threads = 1;

static void wait_for_quiet_workers(void)
{
    if (threads == 1)
        return;
    bench_wait_for_idle_workers();
}

static int bench_shape(shape s, size_t fixed_reps)
{
    operands o = make_operands(s);
    int failed = 0;
    double warm = 0;
    for (size_t w = 0; w < CONTENDERS; w++) {
        contender *c = &contenders[w];
        c->ready = c->setup(c, &o);
        if (c->ready) {
            wait_for_quiet_workers();
            double t = now();
            c->ready = c->run(c, &o);
            warm += now() - t;
        }
        if (!c->ready) {
            fprintf(stderr, "qmm-bench-peers: %s failed on %zux%zux%zu\n", c->name, s.m, s.k,
                    s.n);
            failed = 1;
        }
    }
    size_t reps = fixed_reps;
    if (reps == 0) {
        reps = warm > 0 ? (size_t)(1.5 / (2 * warm)) : 101;
        reps = reps < 7 ? 7 : reps > 101 ? 101 : reps;
    }
    double *times = xmalloc(CONTENDERS * reps * sizeof *times);
    for (size_t r = 0; r < reps; r++)
        for (size_t w = 0; w < CONTENDERS; w++) {
            contender *c = &contenders[w];
            if (!c->ready)
                continue;
            wait_for_quiet_workers();
            if (!c->run(c, &o))
                c->ready = 0, failed = 1;
            double t = now();
            if (c->ready && !c->run(c, &o))
                c->ready = 0, failed = 1;
            times[w * reps + r] = now() - t;
        }
    double ops = 2.0 * (double)s.m * (double)s.n * (double)s.k;
    double medians[CONTENDERS];
    for (size_t w = 0; w < CONTENDERS; w++)
        medians[w] = contenders[w].ready ? median(times + w * reps, reps) : 0;
    printf("\n%zux%zux%zu (MxKxN, %s), %zu reps\n", s.m, s.k, s.n, s.what, reps);
    printf("  %-31s %11s %9s %12s  %s\n", "library", "median us", "GOPS", "qmm speedup",
           "max |error| vs exact int32");
    for (size_t w = 0; w < CONTENDERS; w++) {
        contender *c = &contenders[w];
        if (c->ready) {
            double t = medians[w], qmm = medians[c->against];
            char verdict[160];
            c->verdict(c, &contenders[c->peer], &o, verdict, sizeof verdict);
            printf("  %-31s %11.1f %9.2f %11.2fx  %s", c->name, t * 1e6, ops / t * 1e-9,
                   qmm > 0 ? t / qmm : 0, verdict);
            if (c->against != C_QMM)
                printf("; speedup over %s", contenders[c->against].name);
            printf("\n");
        } else {
            printf("  %-31s %11s %9s %12s  %s\n", c->name, "-", "-", "-", "failed");
        }
    }
    /* After every verdict: some read another contender's result. */
    for (size_t w = 0; w < CONTENDERS; w++) {
        contenders[w].teardown(&contenders[w]);
        contenders[w].state = NULL;
    }
    fflush(stdout);
    free(times);
    free_operands(&o);
    return !failed;
}

/* The peers read their thread counts from the environment when they load:
 * set them and start again, with the same arguments (--threads included). The
 * second start finds both variables already equal to `count` and goes on, so
 * this happens once. */
static void set_peer_threads(char **argv, size_t count)
{
    char n[24];
    snprintf(n, sizeof n, "%zu", count);
    const char *omp = getenv("OMP_NUM_THREADS"), *ob = getenv("OPENBLAS_NUM_THREADS");
    if (omp != NULL && strcmp(omp, n) == 0 && ob != NULL && strcmp(ob, n) == 0)
        return;
    if (setenv("OMP_NUM_THREADS", n, 1) != 0 || setenv("OPENBLAS_NUM_THREADS", n, 1) != 0) {
        perror("qmm-bench-peers: setenv");
        exit(1);
    }
    execv("/proc/self/exe", argv);
    fprintf(stderr, "qmm-bench-peers: re-exec with %s thread(s): ", n);
    perror(NULL);
    exit(1);
}

static const char usage[] =
    "usage: qmm-bench-peers [--shape MxKxN]... [--reps N] [--threads N] [--avx2]\n";

int main(int argc, char **argv)
{
    /* --threads first: the re-exec that gives it to oneDNN and OpenBLAS comes
     * before anything else (the rest of the arguments are read after it). */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            const char *text = argv[++i];
            char *end = NULL;
            unsigned long v = strtoul(text, &end, 10);
            /* Digits only: no sign, no space, nothing after them. */
            if (text[0] < '0' || text[0] > '9' || *end != '\0' || v < 1 ||
                v > QMM_MAX_THREADS) {
                fprintf(stderr, "qmm-bench-peers: bad thread count %s (1 to %d)\n", text,
                        QMM_MAX_THREADS);
                return 2;
            }
            threads = (size_t)v;
        } else if (strcmp(argv[i], "--shape") == 0 || strcmp(argv[i], "--reps") == 0) {
            i++;  /* their value is never taken for an option */
        }
    }
    set_peer_threads(argv, threads);
    shape *shapes = xmalloc((size_t)argc * sizeof *shapes);
    size_t count = 0, reps = 0;
    int avx2 = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc) {
            shape s = {0, 0, 0, "--shape"};
            if (sscanf(argv[++i], "%zux%zux%zu", &s.m, &s.k, &s.n) != 3 || s.m == 0 ||
                s.k == 0 || s.n == 0 || s.m > 65536 || s.k > 65536 || s.n > 65536) {
                fprintf(stderr, "qmm-bench-peers: bad shape %s (MxKxN)\n", argv[i]);
                return 2;
            }
            shapes[count++] = s;
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = (size_t)strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            i++;  /* read above */
        } else if (strcmp(argv[i], "--avx2") == 0) {
            /* Before the first call of either library, which read these once. */
            setenv("QMM_DISABLE", "avx512vnni", 1);
            if (dnnl_set_max_cpu_isa(dnnl_cpu_isa_avx2) != dnnl_success) {
                fprintf(stderr, "qmm-bench-peers: oneDNN refused to stop at AVX2\n");
                return 1;
            }
            avx2 = 1;
        } else {
            int help = strcmp(argv[i], "--help") == 0;
            fputs(usage, help ? stdout : stderr);
            return help ? 0 : 2;
        }
    }
    const shape *list = count ? shapes : default_shapes;
    if (count == 0)
        count = sizeof default_shapes / sizeof default_shapes[0];
    /* After --avx2, which must come before qmm's first call. */
    if (qmm_set_num_threads(threads) != QMM_OK) {
        fprintf(stderr, "qmm-bench-peers: qmm refused %zu threads\n", threads);
        return 1;
    }
    openblas_set_num_threads((int)threads);
    peer_gemmlowp_set_num_threads((int)threads);
    if (threads > 1) {
        xnn_pool = pthreadpool_create(threads);
        if (xnn_pool == NULL) {
            fprintf(stderr, "qmm-bench-peers: no pthreadpool of %zu threads\n", threads);
            return 1;
        }
    }
    printf("qmm-bench-peers: threads: %zu (every library); qmm speedup = peer median / "
           "qmm median (qmm one-shot, packing included, unless the row names another)%s\n",
           threads, avx2 ? "; qmm and oneDNN limited to AVX2" : "");
    int ok = 1;
    for (size_t i = 0; i < count; i++)
        ok &= bench_shape(list[i], reps);
    if (xnn_pool != NULL)
        pthreadpool_destroy(xnn_pool);
    free(shapes);
    return ok ? 0 : 1;
}
