#include "options.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"
#include "run.h"

/* Generous, but small enough that a typo does not mean hours of timing. */
#define MAX_USER_REPS 1000000
#define TEXT(x) #x
#define VALUE_TEXT(x) TEXT(x)

void bench_print_usage(FILE *out)
{
    fprintf(out,
            "usage: qmm-bench [--shape MxKxN]... [--reps N] [--kernel NAME [--vs NAME]]\n"
            "                 [--threads N[,M]] [--out X[,Y]] [--a X[,Y]] [--weights X[,Y]]\n"
            "                 [--csv]\n"
            "       qmm-bench --list [--csv]\n"
            "       qmm-bench --bandwidth\n"
            "       qmm-bench --help\n"
            "\n"
            "Times qmm on C[MxN] = A[MxK].B[KxN] (int8 in, int32 out unless --a or --out\n"
            "say otherwise, packing included unless --weights packs a side beforehand) and\n"
            "checks every result against an exact reference on up to %d entries.\n"
            "\n"
            "  --shape MxKxN  time this shape; repeatable; replaces the default shapes\n"
            "                 (256^3, 512^3, 1024^3, MiniLM and InceptionV1 layers)\n"
            "  --reps N       timed calls per shape (default: about %g s of calls per\n"
            "                 kernel, from %d to %d), after one untimed warm-up call\n"
            "  --kernel NAME  run this kernel for every shape instead of qmm's choice;\n"
            "                 int8 A to int32 one-shot calls only (for the others,\n"
            "                 QMM_KERNEL=NAME in the environment forces a kernel on every\n"
            "                 call)\n"
            "  --vs NAME      with --kernel: run NAME too, alternating calls on the same\n"
            "                 data, and report the speed ratio NAME / --kernel\n"
            "  --threads N    run qmm on N threads (default: qmm's own count, from\n"
            "                 QMM_NUM_THREADS or the CPUs this process may use)\n"
            "  --threads N,M  run on N and on M threads, alternating calls on the same\n"
            "                 data, and report the speed ratio M / N\n"
            "  --out X        C's type and output stage, through qmm_gemm but for i32:\n"
            "                   i32       int32, the exact sums (the default)\n"
            "                   f32       float, dequantized by a scale and bias per column\n"
            "                   s8        int8, requantized by TFLite's rule: multiplier,\n"
            "                             shift and int32 bias per column, zero point %d\n"
            "                   s8:float  int8, the same with ONNX's rule: a float scale\n"
            "                             per column, rounded to nearest even\n"
            "  --out X,Y      run both, alternating calls on the same data, and report\n"
            "                 the speed ratio Y / X\n"
            "  --a X          A's type: i8 (the default), or u8 with zero point %d,\n"
            "                 through qmm_gemm\n"
            "  --a X,Y        run both, alternating calls on the same data, and report\n"
            "                 the speed ratio Y / X\n"
            "  --weights X    which side is a layer's weights, packed once per shape by\n"
            "                 qmm_plan_create_gemm before the timing, each timed call\n"
            "                 being qmm_plan_run_gemm with the other side:\n"
            "                   none  no plan: a one-shot call per product (the default)\n"
            "                   a     A (MxK) packed, N given per call (QMM_WEIGHTS_A)\n"
            "                   b     B packed from a copy stored NxK row-major, as PyTorch\n"
            "                         and ONNX keep a Linear layer's weight, M (tokens)\n"
            "                         given per call (QMM_WEIGHTS_B)\n"
            "                 A shape with one row of activations (M = 1 with b, N = 1\n"
            "                 with a) is a decode step: a line after the table gives the\n"
            "                 rate the weights were read at, to compare with --bandwidth\n"
            "                 (weights that fit in the last-level cache may beat it)\n"
            "  --weights X,Y  run both, alternating calls on the same data, and report\n"
            "                 the speed ratio Y / X\n"
            "  --csv          a header line, then one comma-separated line per shape\n"
            "  --list         the kernels in this build and whether this CPU runs them\n"
            "  --bandwidth    this machine's read bandwidth on one thread (the best of %d\n"
            "                 sums of %d MiB of int64), then exit\n"
            "  --help         this text\n"
            "\n"
            "--vs, --threads N,M, --out X,Y, --a X,Y and --weights X,Y each add a second\n"
            "run: one at most.\n"
            "\n"
            "Examples:\n"
            "  qmm-bench --shape 128x384x1536 --threads 1\n"
            "      a 384 -> 1536 layer on 128 tokens, on one thread\n"
            "  qmm-bench --weights none,b --shape 128x384x1536 --shape 1x384x1536\n"
            "      the same layer as one-shot calls and as a plan, for a batch of tokens\n"
            "      and for one (decode)\n"
            "  qmm-bench --weights b --a u8 --out s8 --shape 1x4096x4096\n"
            "      one token through a 4096 -> 4096 layer, uint8 in and int8 out\n"
            "  qmm-bench --kernel NAME --vs OTHER --shape 256x256x256 --shape 1x256x256\n"
            "      two kernels (--list) on the same products\n"
            "\n"
            "Exit status: 0 when every check passed; 1 when a check or a call failed;\n"
            "2 for bad arguments, or a kernel that does not exist or cannot run here.\n",
            BENCH_CHECK_SAMPLES, BENCH_TARGET_SECONDS, BENCH_MIN_REPS, BENCH_MAX_REPS,
            BENCH_OUT_ZERO_POINT, BENCH_A_ZERO_POINT, BENCH_BANDWIDTH_TRIES,
            BENCH_BANDWIDTH_MIB);
}

/* "N" or "N,M", each from 1 to QMM_MAX_THREADS, into out[0] and out[1]
 * (M = N when one is given): how many were given, 0 when text is not that. */
static size_t parse_threads(const char *text, size_t out[2])
{
    if (!bench_read_number(&text, QMM_MAX_THREADS, &out[0]))
        return 0;
    out[1] = out[0];
    if (*text == '\0')
        return 1;
    int second = *text++ == ',' && bench_read_number(&text, QMM_MAX_THREADS, &out[1]);
    return second && *text == '\0' ? 2 : 0;
}

/* One of names[0..count) at *p, up to a comma or the end, which *p is moved
 * to: its index into *out. */
static int read_name(const char **p, const char *const *names, size_t count, size_t *out)
{
    const size_t length = strcspn(*p, ",");
    for (size_t i = 0; i < count; i++) {
        if (strlen(names[i]) == length && strncmp(*p, names[i], length) == 0) {
            *p += length;
            *out = i;
            return 1;
        }
    }
    return 0;
}

/* "X" or "X,Y", each one of names[0..count), into out[0] and out[1] as
 * parse_threads does numbers. */
static size_t parse_names(const char *text, const char *const *names, size_t count,
                          size_t out[2])
{
    if (!read_name(&text, names, count, &out[0]))
        return 0;
    out[1] = out[0];
    if (*text == '\0')
        return 1;
    int second = *text++ == ',' && read_name(&text, names, count, &out[1]);
    return second && *text == '\0' ? 2 : 0;
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

/* How many values each list option was given: 0 when absent. */
typedef struct list_sizes {
    size_t threads, out, a, weights;
} list_sizes;

/* Nonzero when contender w makes the one call that --kernel can force: a
 * one-shot qmm_i8_i32, int8 A to int32. */
static int kernel_can_be_forced(const bench_options *opt, size_t w)
{
    return !bench_is_quantized(opt->a[w], opt->out[w]) && opt->weights[w] == BENCH_WEIGHTS_NONE;
}

/* The rules between options, and the contenders they give. */
static bench_parse_result count_contenders(bench_options *opt, list_sizes given)
{
    if (opt->vs != NULL && opt->kernel == NULL)
        return bad("--vs needs --kernel, the kernel it is compared with", "");
    size_t seconds = (size_t)((opt->vs != NULL) + (given.threads == 2) + (given.out == 2) +
                              (given.a == 2) + (given.weights == 2));
    if (seconds > 1)
        return bad("only one of --vs, --threads N,M, --out X,Y, --a X,Y and --weights X,Y may "
                   "give a second run", "");
    opt->contenders = 1 + seconds;
    /* Neither qmm_gemm nor the plans have an entry with a kernel forced, and
     * QMM_KERNEL is read once per process, so the bench cannot force one on
     * them by itself. */
    if (opt->kernel != NULL && (!kernel_can_be_forced(opt, 0) || !kernel_can_be_forced(opt, 1)))
        return bad("--kernel runs int8 A to int32 one-shot calls only: for --a u8, --out other "
                   "than i32 or --weights a or b, force a kernel with QMM_KERNEL=NAME in the "
                   "environment", "");
    return BENCH_PARSE_RUN;
}

bench_parse_result bench_parse_options(int argc, char **argv, bench_options *opt)
{
    memset(opt, 0, sizeof *opt);
    /* Room for every argument being a shape. */
    opt->parsed_shapes = malloc((size_t)argc * sizeof *opt->parsed_shapes);
    if (opt->parsed_shapes == NULL)
        return bad("out of memory", "");
    size_t shapes = 0;
    list_sizes given = {0};
    /* Indices into bench_out_names, bench_a_names and bench_weights_names:
     * i32, i8 and none unless given. */
    size_t out[2] = {BENCH_OUT_I32, BENCH_OUT_I32}, a[2] = {QMM_TYPE_I8, QMM_TYPE_I8};
    size_t weights[2] = {BENCH_WEIGHTS_NONE, BENCH_WEIGHTS_NONE};
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
        if (is(arg, "--bandwidth")) {
            opt->bandwidth = 1;
            continue;
        }
        /* The other options take a value. */
        if (!is(arg, "--kernel") && !is(arg, "--vs") && !is(arg, "--reps") &&
            !is(arg, "--shape") && !is(arg, "--threads") && !is(arg, "--out") && !is(arg, "--a") &&
            !is(arg, "--weights"))
            return bad("unknown argument ", arg);
        if (i + 1 == argc)
            return bad("missing value after ", arg);
        const char *value = argv[++i];
        if (is(arg, "--kernel"))
            opt->kernel = value;
        else if (is(arg, "--vs"))
            opt->vs = value;
        else if (is(arg, "--reps") && !bench_parse_whole(value, MAX_USER_REPS, &opt->reps))
            return bad("--reps needs a whole number from 1 to " VALUE_TEXT(MAX_USER_REPS) ", not ",
                       value);
        else if (is(arg, "--threads") && (given.threads = parse_threads(value, opt->threads)) == 0)
            return bad("--threads needs N or N,M, whole numbers from 1 to " VALUE_TEXT(
                           QMM_MAX_THREADS) ", not ",
                       value);
        else if (is(arg, "--out") &&
                 (given.out = parse_names(value, bench_out_names, BENCH_OUT_COUNT, out)) == 0)
            return bad("--out needs X or X,Y, each i32, f32, s8 or s8:float, not ", value);
        else if (is(arg, "--a") &&
                 (given.a = parse_names(value, bench_a_names, BENCH_A_TYPES, a)) == 0)
            return bad("--a needs X or X,Y, each i8 or u8, not ", value);
        else if (is(arg, "--weights") &&
                 (given.weights = parse_names(value, bench_weights_names, BENCH_WEIGHTS_COUNT,
                                              weights)) == 0)
            return bad("--weights needs X or X,Y, each none, a or b, not ", value);
        /* Every size from 1 to PTRDIFF_MAX, the library's limit. */
        else if (is(arg, "--shape") &&
                 !bench_parse_shape(value, PTRDIFF_MAX, &opt->parsed_shapes[shapes++]))
            return bad("--shape needs MxKxN with every size at least 1, not ", value);
    }
    for (int w = 0; w < 2; w++) {
        opt->out[w] = (bench_out)out[w];
        opt->a[w] = (qmm_type)a[w];
        opt->weights[w] = (bench_weights)weights[w];
    }
    opt->shapes = shapes > 0 ? opt->parsed_shapes : bench_default_shapes;
    opt->shape_count = shapes > 0 ? shapes : bench_default_shape_count;
    return count_contenders(opt, given);
}

void bench_free_options(bench_options *opt)
{
    free(opt->parsed_shapes);
    opt->parsed_shapes = NULL;
}
