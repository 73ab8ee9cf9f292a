#include "shapes.h"

#include <stdio.h>

const bench_shape bench_default_shapes[] = {
    /* Square: the classic GEMM scaling points. */
    {256, 256, 256},
    {512, 512, 512},
    {1024, 1024, 1024},
    /* MiniLM, 128 tokens: attention projections and the feed-forward pair. */
    {128, 384, 384},
    {128, 384, 1152},
    {128, 384, 1536},
    {128, 1536, 384},
    /* InceptionV1: convolutions as im2col products, then the classifier GEMVs. */
    {12544, 147, 64},
    {3136, 64, 64},
    {3136, 576, 192},
    {784, 192, 64},
    {784, 864, 128},
    {784, 400, 32},
    {196, 480, 192},
    {49, 1728, 384},
    {49, 1200, 128},
    {1, 2048, 1024},
    {1, 1024, 1008},
};
const size_t bench_default_shape_count =
    sizeof bench_default_shapes / sizeof bench_default_shapes[0];

void bench_format_shape(bench_shape s, char *text)
{
    snprintf(text, BENCH_SHAPE_TEXT_SIZE, "%zux%zux%zu", s.m, s.k, s.n);
}

int bench_read_number(const char **p, size_t max, size_t *out)
{
    const char *s = *p;
    size_t v = 0;
    if (*s < '0' || *s > '9')
        return 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        size_t digit = (size_t)(*s - '0');
        if (v > (max - digit) / 10)
            return 0;
        v = v * 10 + digit;
    }
    if (v == 0)
        return 0;
    *p = s;
    *out = v;
    return 1;
}

int bench_parse_whole(const char *text, size_t max, size_t *out)
{
    return bench_read_number(&text, max, out) && *text == '\0';
}

int bench_parse_shape(const char *text, size_t max, bench_shape *out)
{
    size_t *dims[3] = {&out->m, &out->k, &out->n};
    for (int d = 0; d < 3; d++) {
        if (d > 0 && *text++ != 'x')
            return 0;
        if (!bench_read_number(&text, max, dims[d]))
            return 0;
    }
    return *text == '\0';
}
