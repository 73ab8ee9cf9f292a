/* The command line. */
#ifndef QMM_BENCH_OPTIONS_H
#define QMM_BENCH_OPTIONS_H

#include <stddef.h>

#include "command_line.h"
#include "qmm/qmm.h"
#include "quantized.h"
#include "shapes.h"
#include "weights.h"

typedef struct bench_options {
    const bench_shape *shapes;  /* the --shape list, else the defaults */
    size_t shape_count;
    size_t reps;                /* --reps; 0 when chosen per shape (run.h) */
    int csv;                    /* --csv */
    int list;                   /* --list */
    int bandwidth;              /* --bandwidth */
    const char *kernel;         /* --kernel: forced for every shape; NULL: qmm chooses */
    const char *vs;             /* --vs: compared with kernel; NULL when absent */
    /* Per contender, what --threads, --out, --a and --weights give it: the
     * option's first value, and its second for the second contender when it
     * has one, else the first again. */
    size_t threads[2];          /* --threads N[,M]: counts; 0 when not given */
    bench_out out[2];           /* --out X[,Y]: BENCH_OUT_I32 when not given */
    qmm_type a[2];              /* --a X[,Y]: QMM_TYPE_I8 when not given */
    bench_weights weights[2];   /* --weights X[,Y]: BENCH_WEIGHTS_NONE when not given */
    size_t contenders;          /* 2 with --vs or an option's second value, else 1 */
    bench_shape *parsed_shapes; /* storage of the --shape list */
} bench_options;

bench_parse_result bench_parse_options(int argc, char **argv, bench_options *opt);
void bench_free_options(bench_options *opt);

#endif
