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
