/*
 * The result check: entries of C compared with an exact reference computed
 * here, independently of the library's packing, kernels and output stages.
 */
#ifndef QMM_BENCH_REFERENCE_H
#define QMM_BENCH_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "quantized.h"

/* Entries checked per result when C has more than this many. */
#define BENCH_CHECK_SAMPLES 256

typedef struct bench_check {
    size_t checked, wrong;
    /* The first wrong entry, when wrong > 0: int32, float or int8 values,
     * every one exact in a double. */
    size_t i, j;
    double got, want;
} bench_check;

/* Compare p's C with the reference: every entry when C has at most
 * BENCH_CHECK_SAMPLES, else its four corners (where edge tiles end) and
 * random entries drawn from seed, so that the check stays cheap next to the
 * product itself. */
bench_check bench_check_sample(const bench_product *p, uint64_t seed);

#endif
