/* The command line of qmm-bench-peers. */
#ifndef QMM_PEERS_OPTIONS_H
#define QMM_PEERS_OPTIONS_H

#include <stddef.h>

#include "../command_line.h"
#include "operands.h"

typedef struct peer_options {
    const shape *shapes;   /* the --shape list, else the defaults */
    size_t shape_count;
    size_t reps;           /* --reps; 0 when chosen per shape (run.h) */
    size_t threads;        /* --threads, 1 when not given */
    int avx2;              /* --avx2 */
    shape *parsed_shapes;  /* storage of the --shape list */
} peer_options;

/* Reads argv without acting on it: main.c may start the process again with
 * the same arguments (see there). */
bench_parse_result peer_parse_options(int argc, char **argv, peer_options *opt);
void peer_free_options(peer_options *opt);

#endif
