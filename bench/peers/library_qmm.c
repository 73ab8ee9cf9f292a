/* qmm's ways of computing each product: one-shot, plans with either operand
 * packed once, and the quantized products that compute the requantizing
 * peers' functions. */
#include <stdio.h>
#include <stdlib.h>

#include "libraries.h"
#include "qmm/qmm.h"

static int qmm_start(size_t threads, int avx2)
{
    /* Before qmm's first call, which reads the environment once. */
    if (avx2 && setenv("QMM_DISABLE", "avx512vnni", 1) != 0) {
        perror("qmm-bench-peers: setenv");
        return 0;
    }
    if (qmm_set_num_threads(threads) != QMM_OK) {
        fprintf(stderr, "qmm-bench-peers: qmm refused %zu threads\n", threads);
        return 0;
    }
    return 1;
}

static int one_shot_run(trial *t, const operands *o)
{
    shape s = o->s;
    return qmm_i8_i32(s.m, s.n, s.k, o->a, s.k, o->b, s.n, t->c, s.n) == QMM_OK;
}

const contender qmm_one_shot = {
    .name = "qmm", .result = RESULT_I32, .run = one_shot_run,
};

static void plan_teardown(trial *t)
{
    qmm_plan_destroy(t->state);
}

/* qmm_plan_run on a plan whose A (the weights) was packed once. */
static int plan_a_setup(trial *t, const operands *o)
{
    qmm_plan *p;
    if (qmm_plan_create(&p, o->s.m, o->s.n, o->s.k) != QMM_OK)
        return 0;
    t->state = p;
    return qmm_plan_pack_a(p, o->a, o->s.k) == QMM_OK;
}
static int plan_a_run(trial *t, const operands *o)
{
    return qmm_plan_run(t->state, o->s.n, o->b, o->s.n, t->c, o->s.n) == QMM_OK;
}

static const contender qmm_plan_a = {
    .name = "qmm plan (A packed once)", .result = RESULT_I32, .setup = plan_a_setup,
    .run = plan_a_run, .teardown = plan_teardown,
};

/* The int32 product as a quantized descriptor. */
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
static int plan_b_setup(trial *t, const operands *o)
{
    qmm_gemm_desc d = i32_desc(o, t->c);
    qmm_plan *p;
    if (qmm_plan_create_gemm(&p, &d, QMM_WEIGHTS_B) != QMM_OK)
        return 0;
    t->state = p;
    return 1;
}
static int plan_b_run(trial *t, const operands *o)
{
    qmm_gemm_desc d = i32_desc(o, t->c);
    return qmm_plan_run_gemm(t->state, &d) == QMM_OK;
}

/* qmm_plan_run_gemm on a plan made by qmm_plan_create_gemm with QMM_WEIGHTS_B:
 * B packed once, the operand oneDNN's matmul takes as its weights and
 * reorders once. */
const contender qmm_plan_b = {
    .name = "qmm plan (B packed once)", .result = RESULT_I32, .setup = plan_b_setup,
    .run = plan_b_run, .teardown = plan_teardown,
};

/* XNNPACK qs8 FC's function (library_xnnpack.c) on the same memory: the
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
static int s8_run(trial *t, const operands *o)
{
    qmm_gemm_desc d = s8_desc(o, t->c);
    return qmm_gemm(&d) == QMM_OK;
}

static const contender qmm_s8 = {
    .name = "qmm s8 (fp32 requant)", .result = RESULT_S8, .run = s8_run,
    .peer = &xnnpack_qs8_fc,
};

/* The same with the weights packed once, as XNNPACK packs them. */
static int plan_s8_setup(trial *t, const operands *o)
{
    qmm_gemm_desc d = s8_desc(o, t->c);
    qmm_plan *p;
    if (qmm_plan_create_gemm(&p, &d, o->q.weights_b ? QMM_WEIGHTS_B : QMM_WEIGHTS_A) != QMM_OK)
        return 0;
    t->state = p;
    return 1;
}
static int plan_s8_run(trial *t, const operands *o)
{
    qmm_gemm_desc d = s8_desc(o, t->c);
    return qmm_plan_run_gemm(t->state, &d) == QMM_OK;
}

const contender qmm_plan_s8 = {
    .name = "qmm plan s8", .result = RESULT_S8, .setup = plan_s8_setup, .run = plan_s8_run,
    .teardown = plan_teardown, .peer = &xnnpack_qs8_fc,
};

/* gemmlowp's pipeline (library_gemmlowp.c): its uint8 operands with zero
 * points 128 (its offsets -128), the bias, TFLite's rounding with its
 * multiplier and shift (gemmlowp's exponent: positive shifts left, as qmm's
 * shift), its output zero point and clamp. */
static int u8_run(trial *t, const operands *o)
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
        .c = {.type = QMM_TYPE_U8, .data = t->c, .rs = (ptrdiff_t)s.n, .cs = 1,
              .bias = {.per = q->weights_b ? QMM_PER_COL : QMM_PER_ROW, .values = q->bias},
              .requant = {.rounding = QMM_ROUND_TFLITE, .per = QMM_PER_MATRIX,
                          .multiplier = q->multiplier, .shift = q->shift,
                          .zero_point = U8_OUTPUT_ZP, .clamp = 1, .min = U8_OUTPUT_MIN,
                          .max = 255}},
    };
    return qmm_gemm(&d) == QMM_OK;
}

static const contender qmm_u8 = {
    .name = "qmm u8 (tflite requant)", .result = RESULT_U8, .run = u8_run,
    .peer = &gemmlowp_requant,
};

static const contender *const contenders[] = {
    &qmm_one_shot, &qmm_plan_a, &qmm_plan_b, &qmm_s8, &qmm_plan_s8, &qmm_u8, NULL,
};

const library qmm_library = {.start = qmm_start, .contenders = contenders};
