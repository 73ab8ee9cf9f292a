/* Wall-clock timing of calls. */
#ifndef QMM_BENCH_TIMING_H
#define QMM_BENCH_TIMING_H

#include <stddef.h>

/* Seconds on CLOCK_MONOTONIC, which NTP adjustments cannot step backwards. */
double bench_now(void);

/* The median of v[0..count), count > 0; sorts v. */
double bench_median(double *v, size_t count);

#endif
