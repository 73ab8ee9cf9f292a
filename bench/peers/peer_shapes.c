#include "peer_shapes.h"

#include "../shapes.h"

/* --shape's largest size: the bench holds A and B in several forms, the
 * exact C and every contender's C at once. */
#define MAX_SIZE 65536

const shape peer_default_shapes[] = {
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
const size_t peer_default_shape_count = sizeof peer_default_shapes / sizeof peer_default_shapes[0];

int peer_parse_shape(const char *text, shape *out)
{
    bench_shape s;
    if (!bench_parse_shape(text, MAX_SIZE, &s))
        return 0;
    *out = (shape){s.m, s.k, s.n, "--shape"};
    return 1;
}
