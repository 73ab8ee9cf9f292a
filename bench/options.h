/* The command line. */
#ifndef QMM_BENCH_OPTIONS_H
#define QMM_BENCH_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "shapes.h"

typedef struct bench_options {
    const bench_shape *shapes;  /* the --shape list, else the defaults */
    size_t shape_count;
    size_t reps;                /* --reps; 0 when chosen per shape (run.h) */
    int csv;                    /* --csv */
    int list;                   /* --list */
    const char *kernel;         /* --kernel: forced for every shape; NULL: qmm chooses */
    const char *vs;             /* --vs: compared with kernel; NULL when absent */
    size_t threads[2];          /* --threads N[,M]: counts; 0 when not given */
    bench_shape *parsed_shapes; /* storage of the --shape list */
} bench_options;

typedef enum bench_parse_result {
    BENCH_PARSE_RUN,
    BENCH_PARSE_HELP,
    BENCH_PARSE_ERROR   /* already explained on stderr */
} bench_parse_result;

bench_parse_result bench_parse_options(int argc, char **argv, bench_options *opt);
void bench_free_options(bench_options *opt);
void bench_print_usage(FILE *out);

#endif
