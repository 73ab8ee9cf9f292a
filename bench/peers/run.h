/* One shape: every contender prepared, timed interleaved, reported. */
#ifndef QMM_PEERS_RUN_H
#define QMM_PEERS_RUN_H

#include <stddef.h>

#include "contender.h"

/* Times trials[0..count) (each one's `of` set, the rest zero) on shape s:
 * reps repetitions, or as many as fit in about 1.5 s (7 to 101) when reps is
 * 0, on `threads` threads; prints the shape's table and frees what the trials
 * made. Returns 0 when some contender failed (said on stderr). */
int run_shape(shape s, size_t reps, size_t threads, trial *trials, size_t count);

#endif
