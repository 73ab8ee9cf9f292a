/*
 * qmm-bench: times qmm on a set of shapes and checks every result. The work
 * is split by job: options.c lists the options, which command_line.c (shared
 * with qmm-compare and qmm-bench-peers) reads, run.c times a shape,
 * quantized.c describes the products --a and --out ask for, weights.c makes
 * the plans --weights asks for, reference.c checks a result, report.c
 * prints, kernel_lookup.c lists and resolves kernels, bandwidth.c measures
 * --bandwidth.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bandwidth.h"
#include "dispatch/choose.h"
#include "kernel_lookup.h"
#include "options.h"
#include "report.h"
#include "run.h"

enum bench_exit {
    EXIT_ALL_PASSED = 0,
    EXIT_SOMETHING_FAILED = 1,   /* a check, a call or an allocation */
    EXIT_BAD_REQUEST = 2,        /* bad arguments, or a kernel that cannot run here */
};

/* Name the kernel qmm_i8_i32 and qmm_gemm will use for s. Fails only when
 * QMM_KERNEL forces a kernel that does not exist or cannot run here. */
static int name_qmm_choice(bench_shape s, bench_contender *who)
{
    const qmm_kernel *k;
    int transposed;
    qmm_status st = qmm_choose_for_call(s.m, s.n, &k, &transposed);
    if (st != QMM_OK) {
        fprintf(stderr, "qmm-bench: QMM_KERNEL=%s: %s\n", getenv("QMM_KERNEL"),
                qmm_status_str(st));
        return 0;
    }
    who->name = k->name;
    return 1;
}

/* The contenders the options ask for, in who[0..opt->contenders); 0 when
 * --kernel or --vs names a kernel that cannot run here (said on stderr). */
static int make_contenders(const bench_options *opt, bench_contender *who)
{
    /* Every kernel is resolved before anything runs, so that a kernel this
     * CPU cannot run is refused rather than executed. */
    if (opt->kernel != NULL &&
        (who[0].forced = bench_lookup_kernel("--kernel", opt->kernel)) == NULL)
        return 0;
    if (opt->vs != NULL && (who[1].forced = bench_lookup_kernel("--vs", opt->vs)) == NULL)
        return 0;
    /* Without --vs, both run --kernel's kernel, or qmm's choice, and differ
     * by the second value of --threads, --out, --a or --weights, if any. */
    if (opt->vs == NULL)
        who[1].forced = who[0].forced;
    for (size_t w = 0; w < BENCH_MAX_CONTENDERS; w++) {
        who[w].name = who[w].forced != NULL ? who[w].forced->name : "qmm's choice";
        who[w].threads = opt->threads[w];
        who[w].a = opt->a[w];
        who[w].out = opt->out[w];
        who[w].weights = opt->weights[w];
    }
    return 1;
}

/* Times every shape and prints its line, keeping its results in results[i]
 * for after the table; a shape that could not run keeps reps == 0. */
static enum bench_exit time_shapes(const bench_options *opt, bench_contender *who,
                                   bench_shape_result *results)
{
    const size_t count = opt->contenders;
    enum bench_exit result = EXIT_ALL_PASSED;
    for (size_t i = 0; i < opt->shape_count; i++) {
        bench_shape s = opt->shapes[i];
        if (opt->kernel == NULL && !name_qmm_choice(s, &who[0]))
            return EXIT_BAD_REQUEST;
        if (opt->kernel == NULL && count == 2)
            who[1].name = who[0].name;
        bench_shape_result *r = &results[i];
        if (!bench_run_shape(s, who, count, opt->reps, r)) {
            r->reps = 0;
            result = EXIT_SOMETHING_FAILED;
            continue;
        }
        bench_report_shape(opt->csv, s, who, count, r);
        for (size_t w = 0; w < count; w++)
            if (!bench_outcome_passed(&r->per[w]))
                result = EXIT_SOMETHING_FAILED;
    }
    return result;
}

static enum bench_exit run_shapes(const bench_options *opt)
{
    bench_contender who[BENCH_MAX_CONTENDERS] = {{0}};
    if (!make_contenders(opt, who))
        return EXIT_BAD_REQUEST;
    bench_shape_result *results = malloc(opt->shape_count * sizeof *results);
    if (results == NULL) {
        fprintf(stderr, "qmm-bench: out of memory\n");
        return EXIT_SOMETHING_FAILED;
    }
    bench_report_begin(opt->csv, who, opt->contenders);
    enum bench_exit result = time_shapes(opt, who, results);
    if (result != EXIT_BAD_REQUEST) {
        bench_report_weights_read(opt->csv, opt->shapes, results, opt->shape_count, who,
                                  opt->contenders);
        bench_report_work(opt->csv, opt->shapes, results, opt->shape_count, who,
                          opt->contenders);
    }
    free(results);
    return result;
}

static enum bench_exit measure_bandwidth(void)
{
    double rate = bench_read_bandwidth();
    if (rate == 0) {
        fprintf(stderr, "qmm-bench: --bandwidth: not enough memory for %d MiB\n",
                BENCH_BANDWIDTH_MIB);
        return EXIT_SOMETHING_FAILED;
    }
    bench_report_bandwidth(rate);
    return EXIT_ALL_PASSED;
}

/* What the options ask for. */
static enum bench_exit run(const bench_options *opt)
{
    if (opt->list) {
        bench_print_kernels(stdout, opt->csv);
        return EXIT_ALL_PASSED;
    }
    return opt->bandwidth ? measure_bandwidth() : run_shapes(opt);
}

int main(int argc, char **argv)
{
    bench_options opt;
    bench_parse_result parsed = bench_parse_options(argc, argv, &opt);
    enum bench_exit result = parsed == BENCH_PARSE_ERROR ? EXIT_BAD_REQUEST : EXIT_ALL_PASSED;
    if (parsed == BENCH_PARSE_RUN)
        result = run(&opt);
    bench_free_options(&opt);
    return result;
}
