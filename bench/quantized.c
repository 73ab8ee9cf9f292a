#include "quantized.h"

#include <stdlib.h>

#include "rng.h"

const char *const bench_out_names[BENCH_OUT_COUNT] = {
    [BENCH_OUT_I32] = "i32",
    [BENCH_OUT_F32] = "f32",
    [BENCH_OUT_S8] = "s8",
    [BENCH_OUT_S8_FLOAT] = "s8:float",
};

const char *const bench_a_names[BENCH_A_TYPES] = {
    [QMM_TYPE_I8] = "i8",
    [QMM_TYPE_U8] = "u8",
};

/* C's type, by bench_out. */
static const qmm_type out_types[BENCH_OUT_COUNT] = {
    [BENCH_OUT_I32] = QMM_TYPE_I32,
    [BENCH_OUT_F32] = QMM_TYPE_F32,
    [BENCH_OUT_S8] = QMM_TYPE_I8,
    [BENCH_OUT_S8_FLOAT] = QMM_TYPE_I8,
};

size_t bench_out_bytes(bench_out out)
{
    return out_types[out] == QMM_TYPE_I8 ? sizeof(int8_t) : sizeof(int32_t);
}

int bench_is_quantized(qmm_type a, bench_out out)
{
    return a != QMM_TYPE_I8 || out != BENCH_OUT_I32;
}

/* Uniform in [0, 1): 24 random bits, exact in a float. */
static float unit_float(bench_rng *r)
{
    return (float)(bench_rng_next(r) >> 40) * 0x1p-24f;
}

int bench_params_draw(bench_params *p, size_t n, uint64_t seed)
{
    /* The three int32 arrays in one allocation, the three float ones in
     * another; calloc checks that n of three fit. */
    int32_t *ints = calloc(n, 3 * sizeof *ints);
    float *floats = calloc(n, 3 * sizeof *floats);
    if (ints == NULL || floats == NULL) {
        free(ints);
        free(floats);
        *p = (bench_params){0};
        return 0;
    }
    *p = (bench_params){ints, ints + n, ints + 2 * n, floats, floats + n, floats + 2 * n};
    bench_rng rng = {seed};
    for (size_t j = 0; j < n; j++) {
        p->bias[j] = (int32_t)(bench_rng_next(&rng) % 131072) - 65536;
        /* Multipliers from 2^30 to 2^31 - 1 and shifts from -12 to -8
         * scale the sums by 2^-13 to 2^-8, which spreads them over int8's
         * range, its ends included, for the depths of the default shapes. */
        p->multiplier[j] = (int32_t)((1u << 30) + bench_rng_next(&rng) % (1u << 30));
        p->shift[j] = -8 - (int32_t)(bench_rng_next(&rng) % 5);
        p->scale[j] = 1e-4f + 9e-4f * unit_float(&rng);
        p->float_bias[j] = 2.0f * unit_float(&rng) - 1.0f;
        /* The same real factor as the TFLite rule's, to compare the two. */
        p->requant_scale[j] =
            (float)((double)p->multiplier[j] / 2147483648.0 / (double)(1u << -p->shift[j]));
    }
    return 1;
}

void bench_params_free(bench_params *p)
{
    free(p->bias);
    free(p->scale);
    *p = (bench_params){0};
}

/* The stage's fields of C's descriptor: every parameter per column. */
static void describe_stage(const bench_product *p, qmm_output *c)
{
    const bench_params *q = p->params;
    const qmm_i32_param bias = {.per = QMM_PER_COL, .values = q->bias};
    switch (p->out) {
    case BENCH_OUT_F32:
        c->dequant = (qmm_dequant){.scale = {.per = QMM_PER_COL, .values = q->scale},
                                   .bias = {.per = QMM_PER_COL, .values = q->float_bias}};
        break;
    case BENCH_OUT_S8:
        c->bias = bias;
        c->requant = (qmm_requant){.rounding = QMM_ROUND_TFLITE, .per = QMM_PER_COL,
                                   .multipliers = q->multiplier, .shifts = q->shift,
                                   .zero_point = BENCH_OUT_ZERO_POINT};
        break;
    case BENCH_OUT_S8_FLOAT:
        c->bias = bias;
        c->requant = (qmm_requant){.rounding = QMM_ROUND_FLOAT, .per = QMM_PER_COL,
                                   .scales = q->requant_scale,
                                   .zero_point = BENCH_OUT_ZERO_POINT};
        break;
    default:  /* int32: no stage */
        break;
    }
}

qmm_gemm_desc bench_gemm_desc(const bench_product *p)
{
    const bench_shape s = p->s;
    qmm_gemm_desc d = {
        .m = s.m, .n = s.n, .k = s.k,
        .a = {.type = p->a_type, .data = p->a, .rs = (ptrdiff_t)s.k, .cs = 1},
        .b = {.type = QMM_TYPE_I8, .data = p->b, .rs = (ptrdiff_t)s.n, .cs = 1},
        .c = {.type = out_types[p->out], .data = p->c, .rs = (ptrdiff_t)s.n, .cs = 1},
    };
    if (p->a_type == QMM_TYPE_U8)
        d.a.zero_point = (qmm_i32_param){.per = QMM_PER_MATRIX, .value = BENCH_A_ZERO_POINT};
    describe_stage(p, &d.c);
    return d;
}
