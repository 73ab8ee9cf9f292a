/* The command line of qmm-compare. */
#ifndef QMM_COMPARE_OPTIONS_H
#define QMM_COMPARE_OPTIONS_H

#include <stddef.h>

#include "../command_line.h"
#include "../shapes.h"
#include "qmm/qmm.h"
#include "data.h"

/* The default --slices: one past the count that matches a native double GEMM
 * on well-scaled data, so that the table shows where the gains stop. */
#define COMPARE_DEFAULT_SLICES (QMM_FP64_SLICES + 1)

/* The default --moduli, for qmm_sgemm_crt and qmm_dgemm_crt alike: from
 * below QMM_CRT_FP32_MODULI up to QMM_CRT_FP64_MODULI, so that the table
 * shows where each function reaches its float's accuracy. */
#define COMPARE_DEFAULT_MODULI "4,6,8,12,14,16"

/* The sizes are given to cblas as int and the slices' int8 operands are
 * slices * k wide: 2^16 keeps both far from overflow, and a typo from
 * asking for terabytes. */
#define COMPARE_MAX_DIMENSION 65536

typedef struct compare_options {
    const bench_shape *shapes;  /* the --shape list, else the defaults */
    size_t shape_count;
    compare_dist dists[COMPARE_DIST_COUNT];  /* --dist, in the order given, else the defaults */
    size_t dist_count;
    unsigned slices;            /* --slices: qmm_dgemm_i8 rows for 1 .. slices */
    unsigned moduli[QMM_CRT_MAX_MODULI];  /* --moduli: the CRT rows' counts, increasing */
    size_t moduli_count;
    size_t reps;                /* --reps; 0 when chosen per case (run.h) */
    size_t threads;             /* --threads: qmm's and OpenBLAS's */
    int csv;                    /* --csv */
    const char *plot;           /* --plot FILE.png; NULL when absent */
    bench_shape *parsed_shapes; /* storage of the --shape list */
} compare_options;

bench_parse_result compare_parse_options(int argc, char **argv, compare_options *opt);
void compare_free_options(compare_options *opt);

#endif
