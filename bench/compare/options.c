#include "options.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "run.h"
#include "sanity.h"

/* Generous, but small enough that a typo does not mean hours of timing. */
#define MAX_USER_REPS 1000

/* MiniLM's products on 128 tokens (the attention projections and the
 * feed-forward pair), then the square classic. */
static const bench_shape default_shapes[] = {
    {128, 384, 384},
    {128, 384, 1152},
    {128, 384, 1536},
    {128, 1536, 384},
    {1024, 1024, 1024},
};
#define DEFAULT_SHAPES (sizeof default_shapes / sizeof default_shapes[0])

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: qmm-compare [--shape MxKxN]... [--dist NAME[,NAME]...] [--slices N]\n"
            "                   [--moduli N[,N]...] [--reps N] [--threads N] [--csv]\n"
            "                   [--plot FILE.png]\n"
            "       qmm-compare --help\n"
            "\n"
            "The float-through-int8 recipes against FP64: for each shape\n"
            "C[MxN] = A[MxK].B[KxN] and each distribution of A and B (drawn in double),\n"
            "the accuracy and the speed of\n"
            "  OpenBLAS cblas_dgemm       the FP64 reference, itself timed\n"
            "  OpenBLAS cblas_sgemm       on float copies of A and B\n"
            "  qmm_sgemm_i8               on the float copies, per tensor and per channel\n"
            "  qmm_sgemm_crt              on the float copies, with each --moduli count\n"
            "  qmm_dgemm_i8               per channel, with 1, 2, .. --slices slices\n"
            "  qmm_dgemm_crt              with each --moduli count\n"
            "\n"
            "  --shape MxKxN  run this shape; repeatable; replaces the defaults (MiniLM on\n"
            "                 128 tokens: 128x384x384, 128x384x1152, 128x384x1536,\n"
            "                 128x1536x384; and 1024x1024x1024); sizes 1 to %d\n"
            "  --dist LIST    the distributions (below), comma-separated (default: all but\n"
            "                 wide, which would add a quarter to the run's time)\n"
            "  --slices N     qmm_dgemm_i8 rows for 1 to N slices, 1 to %d (default %d:\n"
            "                 QMM_FP64_SLICES + 1); the run's time grows as N^3\n"
            "  --moduli LIST  qmm_sgemm_crt and qmm_dgemm_crt rows for these counts of\n"
            "                 moduli, comma-separated, each 1 to %d and once, listed in\n"
            "                 increasing order (default " COMPARE_DEFAULT_MODULI "); a row's\n"
            "                 int8 GEMMs are as many as its count. A count too few for a\n"
            "                 shape's K (1 modulus holds K up to 8, 2 up to 2048) is\n"
            "                 refused by qmm: its row says so, and is skipped, not failed\n"
            "  --reps N       timed rounds per case, 1 to %d (default %d, or %d for a case\n"
            "                 whose untimed round took over %g s); the median is reported\n"
            "  --threads N    threads of qmm and of OpenBLAS alike, 1 to %d (default 1)\n"
            "  --csv          a header line, then a comma-separated line per method and case\n"
            "  --plot FILE    also draw FILE (PNG) with gnuplot, which must be on PATH:\n"
            "                 relative L2 error against end-to-end time over cblas_dgemm's,\n"
            "                 both log scales, a panel per distribution, a point per method\n"
            "                 and shape\n"
            "  --help         this text\n"
            "\n"
            "Distributions of A and B, drawn in double from fixed seeds:\n",
            COMPARE_MAX_DIMENSION, QMM_MAX_SLICES, COMPARE_DEFAULT_SLICES, QMM_CRT_MAX_MODULI,
            MAX_USER_REPS, COMPARE_REPS, COMPARE_SLOW_REPS, COMPARE_SLOW_ROUND_SECONDS,
            QMM_MAX_THREADS);
    for (size_t d = 0; d < COMPARE_DIST_COUNT; d++)
        fprintf(out, "  %-9s %s\n", compare_dist_names[d], compare_dist_descriptions[d]);
    fprintf(out, "\nColumns:\n");
    compare_print_legend(out);
    fprintf(out,
            "\n"
            "Checks: every qmm call must return QMM_OK with no NaN in C (a CRT call refused\n"
            "for too few moduli for K only skips its row), and on uniform data the\n"
            "relative L2 error must be at most %.0e for qmm_sgemm_i8 (either granularity),\n"
            "%.0e for qmm_sgemm_crt with %d (QMM_CRT_FP32_MODULI) or more moduli, and\n"
            "%.0e for qmm_dgemm_i8 with %d (QMM_FP64_SLICES) or more slices and for\n"
            "qmm_dgemm_crt with %d (QMM_CRT_FP64_MODULI) or more moduli.\n"
            "\n"
            "Exit status: 0 when every check passed; 1 when a check, a call, an allocation or\n"
            "the plot failed; 2 for bad arguments, or --plot without gnuplot on PATH.\n",
            COMPARE_SGEMM_I8_BOUND, COMPARE_SGEMM_CRT_BOUND, QMM_CRT_FP32_MODULI,
            COMPARE_DGEMM_I8_BOUND, QMM_FP64_SLICES, QMM_CRT_FP64_MODULI);
}

static const bench_program program = {"qmm-compare", print_usage, 1, BENCH_THEN_HELP_HINT, 0};

/* "NAME,NAME,...", each a compare_dist_names entry, none twice: into the
 * compare_options at o->to. */
static int take_dists(const bench_option *o, const char *text)
{
    compare_options *opt = o->to;
    opt->dist_count = 0;
    while (1) {
        const size_t length = strcspn(text, ",");
        size_t d = 0;
        while (d < COMPARE_DIST_COUNT && (strlen(compare_dist_names[d]) != length ||
                                          strncmp(text, compare_dist_names[d], length) != 0))
            d++;
        if (d == COMPARE_DIST_COUNT)
            return 0;
        for (size_t i = 0; i < opt->dist_count; i++)
            if (opt->dists[i] == (compare_dist)d)
                return 0;
        opt->dists[opt->dist_count++] = (compare_dist)d;
        if (text[length] == '\0')
            return 1;
        text += length + 1;
    }
}

/* "N,N,...", each from 1 to QMM_CRT_MAX_MODULI, none twice: into
 * opt->moduli in increasing order, so that the plot's lines run one way. */
static int parse_moduli(const char *text, compare_options *opt)
{
    int chosen[QMM_CRT_MAX_MODULI + 1] = {0};
    while (1) {
        size_t count;
        if (!bench_read_number(&text, QMM_CRT_MAX_MODULI, &count) || chosen[count])
            return 0;
        chosen[count] = 1;
        if (*text == '\0')
            break;
        if (*text++ != ',')
            return 0;
    }
    opt->moduli_count = 0;
    for (unsigned count = 1; count <= QMM_CRT_MAX_MODULI; count++)
        if (chosen[count])
            opt->moduli[opt->moduli_count++] = count;
    return 1;
}

static int take_moduli(const bench_option *o, const char *text)
{
    return parse_moduli(text, o->to);
}

/* A file name, not empty: to is a const char *. */
static int take_file(const bench_option *o, const char *name)
{
    return *name != '\0' && bench_take_text(o, name);
}

bench_parse_result compare_parse_options(int argc, char **argv, compare_options *opt)
{
    memset(opt, 0, sizeof *opt);
    parse_moduli(COMPARE_DEFAULT_MODULI, opt);
    opt->threads = 1;
    for (size_t d = 0; d < COMPARE_DEFAULT_DIST_COUNT; d++)
        opt->dists[d] = (compare_dist)d;
    opt->dist_count = COMPARE_DEFAULT_DIST_COUNT;
    /* Room for every argument being a shape. */
    opt->parsed_shapes = malloc((size_t)argc * sizeof *opt->parsed_shapes);
    if (opt->parsed_shapes == NULL)
        return bench_refuse(&program, "out of memory");
    bench_shape_list shapes = {opt->parsed_shapes, 0};
    size_t slices = COMPARE_DEFAULT_SLICES;
    const bench_option options[] = {
        {"--csv", NULL, &opt->csv, 0, NULL},
        {"--shape", bench_take_shape, &shapes, COMPARE_MAX_DIMENSION,
         "--shape needs MxKxN, every size from 1 to " BENCH_VALUE_TEXT(
             COMPARE_MAX_DIMENSION) ", not %s"},
        {"--dist", take_dists, opt, 0,
         "--dist needs names among uniform, normal, scaled, outliers and wide, "
         "comma-separated, each once, not %s"},
        {"--slices", bench_take_whole, &slices, QMM_MAX_SLICES,
         "--slices needs a whole number from 1 to " BENCH_VALUE_TEXT(QMM_MAX_SLICES) ", not %s"},
        {"--moduli", take_moduli, opt, 0,
         "--moduli needs whole numbers from 1 to " BENCH_VALUE_TEXT(
             QMM_CRT_MAX_MODULI) ", comma-separated, each once, not %s"},
        {"--reps", bench_take_whole, &opt->reps, MAX_USER_REPS,
         "--reps needs a whole number from 1 to " BENCH_VALUE_TEXT(MAX_USER_REPS) ", not %s"},
        {"--threads", bench_take_whole, &opt->threads, QMM_MAX_THREADS,
         "--threads needs a whole number from 1 to " BENCH_VALUE_TEXT(QMM_MAX_THREADS) ", not %s"},
        {"--plot", take_file, &opt->plot, 0, "--plot needs a file name"},
    };
    const bench_parse_result read = bench_read_command_line(
        &program, options, sizeof options / sizeof options[0], argc, argv);
    opt->slices = (unsigned)slices;
    opt->shapes = shapes.count > 0 ? shapes.at : default_shapes;
    opt->shape_count = shapes.count > 0 ? shapes.count : DEFAULT_SHAPES;
    return read;
}

void compare_free_options(compare_options *opt)
{
    free(opt->parsed_shapes);
    opt->parsed_shapes = NULL;
}
