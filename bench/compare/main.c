/*
 * qmm-compare: how accurate and how fast the float-through-int8 recipes
 * (qmm_sgemm_i8, qmm_dgemm_i8, and by the Chinese remainder theorem
 * qmm_sgemm_crt, qmm_dgemm_crt) are against OpenBLAS's FP64 and FP32 GEMMs, on
 * several shapes and distributions of the operands. The work is split by
 * job: options.c reads the command line, data.c draws the operands,
 * methods.c runs each method, run.c times a case, accuracy.c measures the
 * errors, sanity.c holds the bounds that make the run a check, report.c
 * prints, plot.c draws --plot, machine.c names the CPU and qmm's kernel,
 * ../workers.c waits for other libraries' threads to go idle.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../blas.h"
#include "methods.h"
#include "options.h"
#include "plot.h"
#include "report.h"
#include "run.h"
#include "sanity.h"

enum compare_exit {
    EXIT_ALL_PASSED = 0,
    EXIT_SOMETHING_FAILED = 1,   /* a check, a call, an allocation or the plot */
    EXIT_BAD_REQUEST = 2,        /* bad arguments, or --plot without gnuplot */
};

/* Every case (shape by distribution), its records appended to *records
 * for the plot. */
static enum compare_exit run_cases(const compare_options *opt, compare_record *records,
                                   size_t *record_count)
{
    compare_method methods[COMPARE_MAX_METHODS];
    const size_t count =
        compare_list_methods(opt->slices, opt->moduli, opt->moduli_count, methods);
    enum compare_exit result = EXIT_ALL_PASSED;
    for (size_t s = 0; s < opt->shape_count; s++)
        for (size_t d = 0; d < opt->dist_count; d++) {
            compare_record *out = &records[*record_count];
            if (!compare_run_case(opt->shapes[s], s, opt->dists[d], methods, count, opt->reps,
                                  opt->threads, out)) {
                result = EXIT_SOMETHING_FAILED;
                continue;
            }
            *record_count += count;
            compare_report_case(opt, out, count);
            for (size_t i = 0; i < count; i++)
                if (!compare_sanity_passed(&out[i]))
                    result = EXIT_SOMETHING_FAILED;
        }
    return result;
}

static enum compare_exit run(const compare_options *opt)
{
    if (opt->plot != NULL && !compare_gnuplot_found()) {
        fprintf(stderr, "qmm-compare: --plot needs gnuplot on PATH (Debian: apt-get install "
                        "gnuplot-nox)\n");
        return EXIT_BAD_REQUEST;
    }
    if (qmm_set_num_threads(opt->threads) != QMM_OK) {
        fprintf(stderr, "qmm-compare: qmm refused %zu threads\n", opt->threads);
        return EXIT_BAD_REQUEST;
    }
    openblas_set_num_threads((int)opt->threads);
    const size_t capacity = opt->shape_count * opt->dist_count * COMPARE_MAX_METHODS;
    compare_record *records = malloc(capacity * sizeof *records);
    if (records == NULL) {
        fprintf(stderr, "qmm-compare: out of memory\n");
        return EXIT_SOMETHING_FAILED;
    }
    compare_report_begin(opt);
    size_t record_count = 0;
    enum compare_exit result = run_cases(opt, records, &record_count);
    if (opt->plot != NULL && !compare_plot(opt->plot, opt, records, record_count))
        result = EXIT_SOMETHING_FAILED;
    free(records);
    return result;
}

int main(int argc, char **argv)
{
    compare_options opt;
    bench_parse_result parsed = compare_parse_options(argc, argv, &opt);
    enum compare_exit result = parsed == BENCH_PARSE_ERROR ? EXIT_BAD_REQUEST : EXIT_ALL_PASSED;
    if (parsed == BENCH_PARSE_RUN)
        result = run(&opt);
    compare_free_options(&opt);
    return result;
}
