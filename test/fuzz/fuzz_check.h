/*
 * Runs one fuzz case through the public API and checks it: a valid call's C
 * against the naive reference, a refused call's status, and that nothing
 * else was written (C's surroundings, the inputs; on a refusal, C too).
 */
#ifndef QMM_FUZZ_CHECK_H
#define QMM_FUZZ_CHECK_H

#include "fuzz_case.h"

typedef struct fuzz_tally {
    long exact_calls;     /* calls that returned QMM_OK, results checked */
    long refused_calls;   /* invalid calls, refusal and untouched C checked */
} fuzz_tally;

/* Runs fc with the kernel the environment gives: QMM_KERNEL=forced (then
 * plans must name it), or the selector's when forced is NULL. Adds its calls
 * to tally; returns the number of failed checks, reported through test_fail. */
long fuzz_case_check(const fuzz_case *fc, const char *forced, fuzz_tally *tally);

#endif
