/*
 * --bandwidth: how fast one thread of this machine reads memory, the bound
 * of a decode step, whose every weight is read once per call (the report
 * gives the rate a plan reads them at, to hold against this one).
 */
#ifndef QMM_BENCH_BANDWIDTH_H
#define QMM_BENCH_BANDWIDTH_H

/* The array summed: far larger than any cache, so that it comes from memory. */
#define BENCH_BANDWIDTH_MIB 256
/* Sums timed; the fastest is kept, the others having been slowed by
 * whatever else ran. */
#define BENCH_BANDWIDTH_TRIES 5

/* Bytes per second at which one thread sums BENCH_BANDWIDTH_MIB MiB of int64,
 * the best of BENCH_BANDWIDTH_TRIES sums; 0 when the array does not fit in
 * memory. */
double bench_read_bandwidth(void);

#endif
