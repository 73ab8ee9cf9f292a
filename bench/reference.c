#include "reference.h"

#include "rng.h"

/* u as int32 modulo 2^32, without the implementation-defined conversion of
 * values above INT32_MAX. */
static int32_t wrap_to_int32(uint32_t u)
{
    if (u <= INT32_MAX)
        return (int32_t)u;
    return (int32_t)(u - 0x80000000u) - INT32_MAX - 1;
}

/* C(i,j) as qmm defines it: each int8 product is exact in int32, and the sum
 * is taken in uint32_t, whose wrap-around is defined and equals int32
 * two's-complement wrap-around. */
static int32_t reference_entry(bench_shape s, const int8_t *a, const int8_t *b,
                               size_t i, size_t j)
{
    uint32_t sum = 0;
    for (size_t p = 0; p < s.k; p++)
        sum += (uint32_t)((int32_t)a[i * s.k + p] * (int32_t)b[p * s.n + j]);
    return wrap_to_int32(sum);
}

static void check_entry(bench_shape s, const int8_t *a, const int8_t *b,
                        const int32_t *c, size_t i, size_t j, bench_check *r)
{
    int32_t want = reference_entry(s, a, b, i, j);
    int32_t got = c[i * s.n + j];
    r->checked++;
    if (got != want && r->wrong++ == 0) {
        r->i = i;
        r->j = j;
        r->got = got;
        r->want = want;
    }
}

bench_check bench_check_sample(bench_shape s, const int8_t *a, const int8_t *b,
                               const int32_t *c, uint64_t seed)
{
    bench_check r = {0};
    if (s.m * s.n <= BENCH_CHECK_SAMPLES) {
        for (size_t i = 0; i < s.m; i++)
            for (size_t j = 0; j < s.n; j++)
                check_entry(s, a, b, c, i, j, &r);
        return r;
    }
    const size_t corners[4][2] = {{0, 0}, {0, s.n - 1}, {s.m - 1, 0}, {s.m - 1, s.n - 1}};
    for (int q = 0; q < 4; q++)
        check_entry(s, a, b, c, corners[q][0], corners[q][1], &r);
    bench_rng rng = {seed};
    while (r.checked < BENCH_CHECK_SAMPLES) {
        size_t i = (size_t)(bench_rng_next(&rng) % s.m);
        size_t j = (size_t)(bench_rng_next(&rng) % s.n);
        check_entry(s, a, b, c, i, j, &r);
    }
    return r;
}
