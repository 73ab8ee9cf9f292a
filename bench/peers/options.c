#include "options.h"

#include <stdio.h>
#include <stdlib.h>

#include "peer_shapes.h"
#include "qmm/qmm.h"
#include "xmalloc.h"

static void print_usage(FILE *out)
{
    fputs("usage: qmm-bench-peers [--shape MxKxN]... [--reps N] [--threads N] [--avx2]\n", out);
}

static const bench_program program = {"qmm-bench-peers", print_usage, 0, BENCH_THEN_NOTHING, 1};

/* One more of the shapes of the peer_options at o->to. */
static int take_shape(const bench_option *o, const char *value)
{
    peer_options *opt = o->to;
    return peer_parse_shape(value, &opt->parsed_shapes[opt->shape_count++]);
}

/* As strtoul reads it: anything, 0 (chosen per shape) when not a number. */
static int take_reps(const bench_option *o, const char *value)
{
    *(size_t *)o->to = (size_t)strtoul(value, NULL, 10);
    return 1;
}

bench_parse_result peer_parse_options(int argc, char **argv, peer_options *opt)
{
    *opt = (peer_options){.threads = 1};
    opt->parsed_shapes = xmalloc((size_t)argc * sizeof *opt->parsed_shapes);
    const bench_option options[] = {
        {"--shape", take_shape, opt, 0, "bad shape %s (MxKxN)"},
        {"--reps", take_reps, &opt->reps, 0, NULL},
        {"--threads", bench_take_whole, &opt->threads, QMM_MAX_THREADS,
         "bad thread count %s (1 to " BENCH_VALUE_TEXT(QMM_MAX_THREADS) ")"},
        {"--avx2", NULL, &opt->avx2, 0, NULL},
    };
    const bench_parse_result read = bench_read_command_line(
        &program, options, sizeof options / sizeof options[0], argc, argv);
    if (opt->shape_count == 0) {
        opt->shapes = peer_default_shapes;
        opt->shape_count = peer_default_shape_count;
    } else {
        opt->shapes = opt->parsed_shapes;
    }
    return read;
}

void peer_free_options(peer_options *opt)
{
    free(opt->parsed_shapes);
    opt->parsed_shapes = NULL;
}
