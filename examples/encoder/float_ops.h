/*
 * The encoder's float arithmetic, the same bits on every CPU: each operation
 * rounded on its own (these files build with -ffp-contract=off), reductions
 * in a fixed order of FLOAT_LANES partial sums whatever the vector width the
 * compiler picks, and exp and erf written here rather than taken from libm,
 * whose results differ between libraries and versions.
 */
#ifndef QMM_ENCODER_FLOAT_OPS_H
#define QMM_ENCODER_FLOAT_OPS_H

#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

/* Partial sums of a reduction: element i goes to lane i % FLOAT_LANES, the
 * lanes are then added pairwise. A constant, not the machine's width. */
enum { FLOAT_LANES = 16 };

/* The hot loops again for wider x86 vectors, chosen at load time (ifunc):
 * the same operations in the same order, only more of them at once (Haswell:
 * AVX2 with FMA, which the attention blocks use). Static, in every file that
 * calls them (gcc and clang name a clone's symbols differently). Not under
 * the sanitizers, whose instrumented resolvers would run before their
 * run-times start. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FLOAT_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FLOAT_SANITIZED 1
#endif
#if defined(__x86_64__) && defined(__ELF__) && defined(__GNUC__) && !defined(FLOAT_SANITIZED)
#define FLOAT_CLONES __attribute__((target_clones("avx512f", "arch=haswell", "default")))
#else
#define FLOAT_CLONES
#endif

static inline float float_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* e^x within about 1 ulp for x in [-87, 88] (clamped to it outside, where
 * the encoder never goes): x = n ln2 + r with |r| <= ln2/2 (Cody and Waite's
 * two-part ln2), e^r by its Taylor series to r^7, times 2^n made from bits. */
static inline float float_exp(float x)
{
    x = x < -87.0f ? -87.0f : x > 88.0f ? 88.0f : x;
    /* n = round(x / ln2), ties to even, by the 1.5 * 2^23 trick: exact here. */
    float n = (x * 1.44269504f + 12582912.0f) - 12582912.0f;
    float r = x - n * 0.693145752f;
    r = r - n * 1.42860677e-6f;
    float p = 1.98412698e-4f;
    p = p * r + 1.38888889e-3f;
    p = p * r + 8.33333333e-3f;
    p = p * r + 4.16666667e-2f;
    p = p * r + 1.66666667e-1f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    return p * float_from_bits((uint32_t)((int32_t)n + 127) << 23);
}

/* erf(x) by Abramowitz and Stegun 7.1.26: absolute error at most 1.5e-7. */
static inline float float_erf(float x)
{
    float a = x < 0.0f ? -x : x;
    float t = 1.0f / (1.0f + 0.3275911f * a);
    float p = 1.061405429f;
    p = p * t - 1.453152027f;
    p = p * t + 1.421413741f;
    p = p * t - 0.284496736f;
    p = p * t + 0.254829592f;
    float y = 1.0f - (p * t) * float_exp(-(a * a));
    return x < 0.0f ? -y : y;
}

/* The reductions are inline: each takes the vector width of the clone that
 * calls it (and is counted as part of its caller's step). */
static inline float float_combine_lanes(float *lane)
{
    for (int w = FLOAT_LANES / 2; w > 0; w /= 2)
        for (int l = 0; l < w; l++)
            lane[l] += lane[l + w];
    return lane[0];
}

/* The sum of x[0 .. n) in the fixed order above. */
static inline float float_sum(const float *x, size_t n)
{
    float lane[FLOAT_LANES] = {0};
    size_t i = 0;
    for (; i + FLOAT_LANES <= n; i += FLOAT_LANES)
        for (int l = 0; l < FLOAT_LANES; l++)
            lane[l] += x[i + l];
    for (int l = 0; i < n; i++, l++)
        lane[l] += x[i];
    return float_combine_lanes(lane);
}

/* The sum of (x[i] - mean)^2 in float_sum's order. */
static inline float float_sum_squares(const float *x, size_t n, float mean)
{
    float lane[FLOAT_LANES] = {0};
    size_t i = 0;
    for (; i + FLOAT_LANES <= n; i += FLOAT_LANES) {
        for (int l = 0; l < FLOAT_LANES; l++) {
            float d = x[i + l] - mean;
            lane[l] += d * d;
        }
    }
    for (int l = 0; i < n; i++, l++) {
        float d = x[i] - mean;
        lane[l] += d * d;
    }
    return float_combine_lanes(lane);
}

/* *lo and *hi: the least and greatest of x[0 .. n), n >= 1: exact in any
 * order. In vectors of four floats (GCC's and clang's vector extension: SSE2
 * and NEON registers) selected by masks, four of each at once, as neither
 * compiler vectorizes a float min or max reduction by itself on x86. */
typedef float float_x4 __attribute__((vector_size(16)));
typedef int32_t int32_x4 __attribute__((vector_size(16)));

static inline float_x4 float_x4_select(int32_x4 mask, float_x4 a, float_x4 b)
{
    return (float_x4)((mask & (int32_x4)a) | (~mask & (int32_x4)b));
}

static inline void float_range(const float *x, size_t n, float *lo, float *hi)
{
    float low = x[0], high = x[0];
    size_t i = 0;
    if (n >= 16) {
        float_x4 vlo[4], vhi[4];
        for (int v = 0; v < 4; v++) {
            memcpy(&vlo[v], x + 4 * v, sizeof vlo[v]);
            vhi[v] = vlo[v];
        }
        for (i = 16; i + 16 <= n; i += 16) {
            for (int v = 0; v < 4; v++) {
                float_x4 y;
                memcpy(&y, x + i + 4 * v, sizeof y);
                vlo[v] = float_x4_select(y < vlo[v], y, vlo[v]);
                vhi[v] = float_x4_select(y > vhi[v], y, vhi[v]);
            }
        }
        for (int v = 0; v < 4; v++) {
            for (int l = 0; l < 4; l++) {
                low = vlo[v][l] < low ? vlo[v][l] : low;
                high = vhi[v][l] > high ? vhi[v][l] : high;
            }
        }
    }
    for (; i < n; i++) {
        low = x[i] < low ? x[i] : low;
        high = x[i] > high ? x[i] : high;
    }
    *lo = low;
    *hi = high;
}

/* x[i] = gelu(x[i]) = (x (erf(x * (1 / sqrt 2)) + 1)) * 0.5, for n elements. */
FLOAT_CLONES static inline void float_gelu(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float v = x[i];
        x[i] = (v * (float_erf(v * 0.707106781f) + 1.0f)) * 0.5f;
    }
}

/* x = softmax(x) over n elements. */
FLOAT_CLONES static inline void float_softmax(float *x, size_t n)
{
    float min, max;
    float_range(x, n, &min, &max);
    for (size_t i = 0; i < n; i++)
        x[i] = float_exp(x[i] - max);
    /* One division, then products: a division per element costs as much as
     * the rest of the step. */
    float inv = 1.0f / float_sum(x, n);
    for (size_t i = 0; i < n; i++)
        x[i] = x[i] * inv;
}

/* x = LayerNorm(x + add) over n elements (add NULL: LayerNorm(x)):
 * (v - mean) / sqrt(var + eps) * w + b, mean and var (the biased one) by
 * float_sum's order. */
FLOAT_CLONES static inline void float_add_layer_norm(float *x, const float *add, size_t n,
                                                    const float *w, const float *b, float eps)
{
    if (add != NULL)
        for (size_t i = 0; i < n; i++)
            x[i] = x[i] + add[i];
    float mean = float_sum(x, n) / (float)n;
    float var = float_sum_squares(x, n, mean) / (float)n;
    float inv = 1.0f / sqrtf(var + eps);
    for (size_t i = 0; i < n; i++)
        x[i] = ((x[i] - mean) * inv) * w[i] + b[i];
}

/* y[j] += s * x[j] for n elements; inline, so that it takes the vector
 * width of the clone that calls it. */
static inline void float_axpy(float *y, float s, const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] += s * x[i];
}

#endif
