#include "float_ops.h"

#include <math.h>

FLOAT_CLONES void float_gelu(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float v = x[i];
        x[i] = (v * (float_erf(v * 0.707106781f) + 1.0f)) * 0.5f;
    }
}

FLOAT_CLONES void float_softmax(float *x, size_t n)
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
