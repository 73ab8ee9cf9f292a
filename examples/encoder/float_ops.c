#include "float_ops.h"

#include <math.h>

static float combine_lanes(float *lane)
{
    for (int w = FLOAT_LANES / 2; w > 0; w /= 2)
        for (int l = 0; l < w; l++)
            lane[l] += lane[l + w];
    return lane[0];
}

FLOAT_CLONES float float_sum(const float *x, size_t n)
{
    float lane[FLOAT_LANES] = {0};
    size_t i = 0;
    for (; i + FLOAT_LANES <= n; i += FLOAT_LANES)
        for (int l = 0; l < FLOAT_LANES; l++)
            lane[l] += x[i + l];
    for (int l = 0; i < n; i++, l++)
        lane[l] += x[i];
    return combine_lanes(lane);
}

FLOAT_CLONES float float_sum_squares(const float *x, size_t n, float mean)
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
    return combine_lanes(lane);
}

FLOAT_CLONES void float_gelu(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float v = x[i];
        x[i] = (v * (float_erf(v / 1.41421356f) + 1.0f)) * 0.5f;
    }
}

/* The least and greatest elements: exact in any order. In vectors of
 * FLOAT_LANES (GCC's and clang's vector extension) and selected by masks, as
 * the compilers vectorize no float min or max reduction themselves. */
typedef float lanes_f32 __attribute__((vector_size(FLOAT_LANES * sizeof(float))));
typedef int32_t lanes_i32 __attribute__((vector_size(FLOAT_LANES * sizeof(int32_t))));

FLOAT_CLONES void float_range(const float *x, size_t n, float *lo, float *hi)
{
    float low = x[0], high = x[0];
    size_t i = 0;
    if (n >= FLOAT_LANES) {
        lanes_f32 vlo, vhi;
        memcpy(&vlo, x, sizeof vlo);
        vhi = vlo;
        for (i = FLOAT_LANES; i + FLOAT_LANES <= n; i += FLOAT_LANES) {
            lanes_f32 v;
            memcpy(&v, x + i, sizeof v);
            lanes_i32 below = v < vlo, above = v > vhi;
            vlo = (lanes_f32)((below & (lanes_i32)v) | (~below & (lanes_i32)vlo));
            vhi = (lanes_f32)((above & (lanes_i32)v) | (~above & (lanes_i32)vhi));
        }
        for (int l = 0; l < FLOAT_LANES; l++) {
            low = vlo[l] < low ? vlo[l] : low;
            high = vhi[l] > high ? vhi[l] : high;
        }
    }
    for (; i < n; i++) {
        low = x[i] < low ? x[i] : low;
        high = x[i] > high ? x[i] : high;
    }
    *lo = low;
    *hi = high;
}

FLOAT_CLONES void float_softmax(float *x, size_t n)
{
    float min, max;
    float_range(x, n, &min, &max);
    for (size_t i = 0; i < n; i++)
        x[i] = float_exp(x[i] - max);
    float sum = float_sum(x, n);
    for (size_t i = 0; i < n; i++)
        x[i] = x[i] / sum;
}

FLOAT_CLONES void float_add_layer_norm(float *x, const float *add, size_t n, const float *w,
                                       const float *b, float eps)
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
