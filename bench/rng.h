/*
 * The bench's random numbers: splitmix64 from a fixed seed, so that every run
 * multiplies the same inputs and checks the same entries, and a failure seen
 * once can be seen again.
 */
#ifndef QMM_BENCH_RNG_H
#define QMM_BENCH_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct bench_rng {
    uint64_t state;
} bench_rng;

uint64_t bench_rng_next(bench_rng *r);

/* p[0..count) = int8 values uniform over the whole range, -128 included. */
void bench_rng_fill_int8(bench_rng *r, int8_t *p, size_t count);

#endif
