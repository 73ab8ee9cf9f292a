#include "options.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"
#include "run.h"

/* Generous, but small enough that a typo does not mean hours of timing. */
#define MAX_USER_REPS 1000000

static void print_usage(FILE *out)
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

/* A list option's values, X or X,Y: --threads' numbers, or the names --out,
 * --a and --weights take. */
typedef struct pair {
    const char *const *names; /* the names it takes; NULL for numbers */
    size_t count;             /* how many names, or the largest number */
    size_t values[2];         /* numbers or indices into names; with X alone, X twice */
    size_t given;             /* how many values it was given: 0 when absent */
} pair;

static int read_one(const char **p, const pair *x, size_t *out)
{
    return x->names != NULL ? read_name(p, x->names, x->count, out)
                            : bench_read_number(p, x->count, out);
}

static int take_pair(const bench_option *o, const char *text)
{
    pair *x = o->to;
    size_t values[2];
    if (!read_one(&text, x, &values[0]))
        return 0;
    values[1] = values[0];
    const int second = *text != '\0';
    if (second && (*text++ != ',' || !read_one(&text, x, &values[1]) || *text != '\0'))
        return 0;
    x->values[0] = values[0];
    x->values[1] = values[1];
    x->given = 1 + (size_t)second;
    return 1;
}

static const bench_program program = {"qmm-bench", print_usage, 1, BENCH_THEN_USAGE, 0};

/* Nonzero when contender w makes the one call that --kernel can force: a
 * one-shot qmm_i8_i32, int8 A to int32. */
static int kernel_can_be_forced(const bench_options *opt, size_t w)
{
    return !bench_is_quantized(opt->a[w], opt->out[w]) && opt->weights[w] == BENCH_WEIGHTS_NONE;
}

/* The rules between options, and the contenders they give: seconds is how
 * many list options were given a second value. */
static bench_parse_result count_contenders(bench_options *opt, size_t seconds)
{
    if (opt->vs != NULL && opt->kernel == NULL)
        return bench_refuse(&program, "--vs needs --kernel, the kernel it is compared with");
    seconds += opt->vs != NULL;
    if (seconds > 1)
        return bench_refuse(&program, "only one of --vs, --threads N,M, --out X,Y, --a X,Y and "
                                      "--weights X,Y may give a second run");
    opt->contenders = 1 + seconds;
    /* Neither qmm_gemm nor the plans have an entry with a kernel forced, and
     * QMM_KERNEL is read once per process, so the bench cannot force one on
     * them by itself. */
    if (opt->kernel != NULL && (!kernel_can_be_forced(opt, 0) || !kernel_can_be_forced(opt, 1)))
        return bench_refuse(&program, "--kernel runs int8 A to int32 one-shot calls only: for "
                                      "--a u8, --out other than i32 or --weights a or b, force a "
                                      "kernel with QMM_KERNEL=NAME in the environment");
    return BENCH_PARSE_RUN;
}

bench_parse_result bench_parse_options(int argc, char **argv, bench_options *opt)
{
    memset(opt, 0, sizeof *opt);
    /* Room for every argument being a shape. */
    opt->parsed_shapes = malloc((size_t)argc * sizeof *opt->parsed_shapes);
    if (opt->parsed_shapes == NULL)
        return bench_refuse(&program, "out of memory");
    bench_shape_list shapes = {opt->parsed_shapes, 0};
    /* Threads 0: qmm's own count; i32, i8 and none unless given. */
    pair threads = {NULL, QMM_MAX_THREADS, {0, 0}, 0};
    pair out = {bench_out_names, BENCH_OUT_COUNT, {BENCH_OUT_I32, BENCH_OUT_I32}, 0};
    pair a = {bench_a_names, BENCH_A_TYPES, {QMM_TYPE_I8, QMM_TYPE_I8}, 0};
    pair weights = {bench_weights_names, BENCH_WEIGHTS_COUNT,
                    {BENCH_WEIGHTS_NONE, BENCH_WEIGHTS_NONE}, 0};
    const bench_option options[] = {
        {"--list", NULL, &opt->list, 0, NULL},
        {"--csv", NULL, &opt->csv, 0, NULL},
        {"--bandwidth", NULL, &opt->bandwidth, 0, NULL},
        {"--kernel", bench_take_text, &opt->kernel, 0, NULL},
        {"--vs", bench_take_text, &opt->vs, 0, NULL},
        {"--reps", bench_take_whole, &opt->reps, MAX_USER_REPS,
         "--reps needs a whole number from 1 to " BENCH_VALUE_TEXT(MAX_USER_REPS) ", not %s"},
        /* Every size from 1 to PTRDIFF_MAX, the library's limit. */
        {"--shape", bench_take_shape, &shapes, PTRDIFF_MAX,
         "--shape needs MxKxN with every size at least 1, not %s"},
        {"--threads", take_pair, &threads, 0,
         "--threads needs N or N,M, whole numbers from 1 to " BENCH_VALUE_TEXT(
             QMM_MAX_THREADS) ", not %s"},
        {"--out", take_pair, &out, 0,
         "--out needs X or X,Y, each i32, f32, s8 or s8:float, not %s"},
        {"--a", take_pair, &a, 0, "--a needs X or X,Y, each i8 or u8, not %s"},
        {"--weights", take_pair, &weights, 0, "--weights needs X or X,Y, each none, a or b, not %s"},
    };
    const bench_parse_result read = bench_read_command_line(
        &program, options, sizeof options / sizeof options[0], argc, argv);
    if (read != BENCH_PARSE_RUN)
        return read;
    for (int w = 0; w < 2; w++) {
        opt->threads[w] = threads.values[w];
        opt->out[w] = (bench_out)out.values[w];
        opt->a[w] = (qmm_type)a.values[w];
        opt->weights[w] = (bench_weights)weights.values[w];
    }
    opt->shapes = shapes.count > 0 ? shapes.at : bench_default_shapes;
    opt->shape_count = shapes.count > 0 ? shapes.count : bench_default_shape_count;
    return count_contenders(opt, (size_t)((threads.given == 2) + (out.given == 2) +
                                          (a.given == 2) + (weights.given == 2)));
}

void bench_free_options(bench_options *opt)
{
    free(opt->parsed_shapes);
    opt->parsed_shapes = NULL;
}
