/* gemmlowp, through its C++ bridge (gemmlowp_peer.cc): uint8 A+128 and B+128
 * with offsets -128 on both, into int32 or through TFLite's output pipeline
 * into uint8. */
#include "gemmlowp_peer.h"
#include "libraries.h"

static int gemmlowp_start(size_t threads, int avx2)
{
    (void)avx2;
    peer_gemmlowp_set_num_threads((int)threads);
    return 1;
}

static int i32_run(trial *t, const operands *o)
{
    shape s = o->s;
    peer_gemmlowp_u8_i32((int)s.m, (int)s.n, (int)s.k, o->a_u8, -128, o->b_u8, -128, t->c);
    return 1;
}

static const contender gemmlowp_i32 = {
    .name = "gemmlowp", .result = RESULT_I32, .run = i32_run,
};

/* OutputStageBiasAddition (per output channel, as operands.h lays them),
 * OutputStageScaleInt32ByFixedPointAndExponent (TFLite's multiplier and
 * exponent for XNNPACK's scale, and the output zero point), OutputStageClamp
 * (a fused ReLU: from the zero point up), OutputStageSaturatingCastToUint8;
 * qmm's u8 contender computes the same function. */
static int requant_run(trial *t, const operands *o)
{
    shape s = o->s;
    const quant *q = &o->q;
    const peer_gemmlowp_requant r = {
        .bias = q->bias, .bias_per_row = !q->weights_b, .multiplier = q->multiplier,
        .exponent = q->shift, .zero_point = U8_OUTPUT_ZP, .min = U8_OUTPUT_MIN, .max = 255};
    peer_gemmlowp_u8_requant((int)s.m, (int)s.n, (int)s.k, o->a_u8, -128, o->b_u8, -128, &r,
                             t->c);
    return 1;
}

const contender gemmlowp_requant = {
    .name = "gemmlowp (tflite requant)", .result = RESULT_U8, .run = requant_run,
};

static const contender *const contenders[] = {&gemmlowp_i32, &gemmlowp_requant, NULL};

const library gemmlowp_library = {.start = gemmlowp_start, .contenders = contenders};
