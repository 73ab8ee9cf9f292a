#include "rng.h"

uint64_t bench_rng_next(bench_rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

void bench_rng_fill_int8(bench_rng *r, int8_t *p, size_t count)
{
    uint64_t bits = 0;
    for (size_t i = 0; i < count; i++, bits >>= 8) {
        if (i % 8 == 0)
            bits = bench_rng_next(r);
        /* A byte 0..255 shifted to -128..127: no implementation-defined
         * unsigned-to-signed conversion. */
        p[i] = (int8_t)((int)(bits & 0xff) - 128);
    }
}
