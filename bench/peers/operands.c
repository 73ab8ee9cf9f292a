#include "operands.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static int8_t random_i8(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (int8_t)(int)((rng_state >> 24) % 256 - 128);
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

operands make_operands(shape s)
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

void free_operands(operands *o)
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

size_t batch_major(const operands *o, size_t i, size_t j)
{
    return o->q.weights_b ? i * o->s.n + j : j * o->s.m + i;
}
