#include "options.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

/* Generous, but small enough that a typo does not mean hours of timing. */
#define MAX_USER_REPS 1000000
#define TEXT(x) #x
#define VALUE_TEXT(x) TEXT(x)

void bench_print_usage(FILE *out)
{
    fprintf(out,
            "usage: qmm-bench [--shape MxKxN]... [--reps N] [--kernel NAME [--vs NAME]]\n"
            "                 [--threads N[,M]] [--csv]\n"
            "       qmm-bench --list [--csv]\n"
            "       qmm-bench --help\n"
            "\n"
            "Times qmm on C[MxN] = A[MxK].B[KxN] (int8 in, int32 out, packing included)\n"
            "and checks every result against an exact reference on up to %d entries.\n"
            "\n"
            "  --shape MxKxN  time this shape; repeatable; replaces the default shapes\n"
            "                 (256^3, 512^3, 1024^3, MiniLM and InceptionV1 layers)\n"
            "  --reps N       timed calls per shape (default: about %g s of calls per\n"
            "                 kernel, from %d to %d), after one untimed warm-up call\n"
            "  --kernel NAME  run this kernel for every shape instead of qmm's choice\n"
            "  --vs NAME      with --kernel: run NAME too, alternating calls on the same\n"
            "                 data, and report the speed ratio NAME / --kernel\n"
            "  --threads N    run qmm on N threads (default: qmm's own count, from\n"
            "                 QMM_NUM_THREADS or the CPUs this process may use)\n"
            "  --threads N,M  run on N and on M threads, alternating calls on the same\n"
            "                 data, and report the speed ratio M / N (not with --vs)\n"
            "  --csv          a header line, then one comma-separated line per shape\n"
            "  --list         the kernels in this build and whether this CPU runs them\n"
            "  --help         this text\n"
            "\n"
            "Exit status: 0 when every check passed; 1 when a check or a call failed;\n"
            "2 for bad arguments, or a kernel that does not exist or cannot run here.\n",
            BENCH_CHECK_SAMPLES, BENCH_TARGET_SECONDS, BENCH_MIN_REPS, BENCH_MAX_REPS);
}

/* A decimal number from 1 to max at *p, which is moved past it; digits only,
 * so no sign, spaces or hex slip through as strtoull would let them. */
static int read_number(const char **p, size_t max, size_t *out)
{
    const char *s = *p;
    size_t v = 0;
    if (*s < '0' || *s > '9')
        return 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        size_t digit = (size_t)(*s - '0');
        if (v > (max - digit) / 10)
            return 0;
        v = v * 10 + digit;
    }
    if (v == 0)
        return 0;
    *p = s;
    *out = v;
    return 1;
}

/* "MxKxN", every size from 1 to PTRDIFF_MAX (the library's limit). */
static int parse_shape(const char *text, bench_shape *out)
{
    size_t *dims[3] = {&out->m, &out->k, &out->n};
    for (int d = 0; d < 3; d++) {
        if (d > 0 && *text++ != 'x')
            return 0;
        if (!read_number(&text, PTRDIFF_MAX, dims[d]))
            return 0;
    }
    return *text == '\0';
}

/* "N" or "N,M", each from 1 to QMM_MAX_THREADS. */
static int parse_threads(const char *text, size_t out[2])
{
    if (!read_number(&text, QMM_MAX_THREADS, &out[0]))
        return 0;
    if (*text == ',' && (++text, !read_number(&text, QMM_MAX_THREADS, &out[1])))
        return 0;
    return *text == '\0';
}

static int parse_reps(const char *text, size_t *out)
{
    return read_number(&text, MAX_USER_REPS, out) && *text == '\0';
}

static bench_parse_result bad(const char *what, const char *arg)
{
    fprintf(stderr, "qmm-bench: %s%s\n", what, arg);
    return BENCH_PARSE_ERROR;
}

static int is(const char *arg, const char *option)
{
    return strcmp(arg, option) == 0;
}

bench_parse_result bench_parse_options(int argc, char **argv, bench_options *opt)
{
    memset(opt, 0, sizeof *opt);
    /* Room for every argument being a shape. */
    opt->parsed_shapes = malloc((size_t)argc * sizeof *opt->parsed_shapes);
    if (opt->parsed_shapes == NULL)
        return bad("out of memory", "");
    size_t shapes = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (is(arg, "--help") || is(arg, "-h"))
            return BENCH_PARSE_HELP;
        if (is(arg, "--list")) {
            opt->list = 1;
            continue;
        }
        if (is(arg, "--csv")) {
            opt->csv = 1;
            continue;
        }
        /* The other options take a value. */
        if (!is(arg, "--kernel") && !is(arg, "--vs") && !is(arg, "--reps") &&
            !is(arg, "--shape") && !is(arg, "--threads"))
            return bad("unknown argument ", arg);
        if (i + 1 == argc)
            return bad("missing value after ", arg);
        const char *value = argv[++i];
        if (is(arg, "--kernel"))
            opt->kernel = value;
        else if (is(arg, "--vs"))
            opt->vs = value;
        else if (is(arg, "--reps") && !parse_reps(value, &opt->reps))
            return bad("--reps needs a whole number from 1 to " VALUE_TEXT(MAX_USER_REPS) ", not ",
                       value);
        else if (is(arg, "--threads") && !parse_threads(value, opt->threads))
            return bad("--threads needs N or N,M, whole numbers from 1 to " VALUE_TEXT(
                           QMM_MAX_THREADS) ", not ",
                       value);
        else if (is(arg, "--shape") && !parse_shape(value, &opt->parsed_shapes[shapes++]))
            return bad("--shape needs MxKxN with every size at least 1, not ", value);
    }
    if (opt->vs != NULL && opt->kernel == NULL)
        return bad("--vs needs --kernel, the kernel it is compared with", "");
    if (opt->vs != NULL && opt->threads[1] != 0)
        return bad("--vs compares kernels on one thread count: give --threads one count", "");
    opt->shapes = shapes > 0 ? opt->parsed_shapes : bench_default_shapes;
    opt->shape_count = shapes > 0 ? shapes : bench_default_shape_count;
    return BENCH_PARSE_RUN;
}

void bench_free_options(bench_options *opt)
{
    free(opt->parsed_shapes);
    opt->parsed_shapes = NULL;
}
