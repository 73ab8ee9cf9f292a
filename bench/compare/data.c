#include "data.h"

#include <math.h>
#include <stdlib.h>

#include "../rng.h"

const char *const compare_dist_names[COMPARE_DIST_COUNT] = {
    "uniform", "normal", "scaled", "outliers", "wide",
};

const char *const compare_dist_descriptions[COMPARE_DIST_COUNT] = {
    "uniform in [-1, 1]",
    "normal(0, 1)",
    "uniform, A's rows and B's columns times 10^u, u in [-3, 3]",
    "uniform, 0.1% of the elements times 1000",
    "uniform, each element times 2^u, u a whole number in [-30, 30]",
};

/* The outliers' share of the elements, and their factor. */
#define OUTLIER_SHARE 1000
#define OUTLIER_FACTOR 1000.0
/* The scaled distribution's range of decimal exponents: [-3, 3]. */
#define SCALE_DECADES 3.0
/* The wide distribution's range of binary exponents: [-30, 30], so that a
 * row or column spans some 18 decimal orders. */
#define WIDE_OCTAVES 30

/* Uniform in [0, 1): the top 53 bits, every value a double exactly. */
static double uniform01(bench_rng *r)
{
    return (double)(bench_rng_next(r) >> 11) * 0x1p-53;
}

static double uniform_pm1(bench_rng *r)
{
    return 2.0 * uniform01(r) - 1.0;
}

/* Box-Muller; 1 - u keeps the logarithm's argument in (0, 1]. */
static double normal01(bench_rng *r)
{
    const double pi = 3.14159265358979323846;
    double radius = sqrt(-2.0 * log(1.0 - uniform01(r)));
    return radius * cos(2.0 * pi * uniform01(r));
}

/* x[i*rs + j*cs] for rows x cols, every line (row when cs == 1, column when
 * rs == 1) times its own 10^u: the lines of very different magnitude that
 * per-channel scales are for. */
static void scale_lines(bench_rng *r, double *x, size_t lines, size_t length, size_t line_step,
                        size_t element_step)
{
    for (size_t l = 0; l < lines; l++) {
        double factor = pow(10.0, SCALE_DECADES * uniform_pm1(r));
        for (size_t e = 0; e < length; e++)
            x[l * line_step + e * element_step] *= factor;
    }
}

/* A few large values among small ones: the case per-tensor scales handle
 * worst, the outlier setting the step for everything else. At least one
 * outlier, so that tiny matrices have one too; an element is never hit
 * twice. */
static void add_outliers(bench_rng *r, double *x, size_t count)
{
    size_t outliers = count / OUTLIER_SHARE > 0 ? count / OUTLIER_SHARE : 1;
    for (size_t done = 0; done < outliers;) {
        size_t at = (size_t)(bench_rng_next(r) % count);
        if (fabs(x[at]) <= 1.0) {
            x[at] *= OUTLIER_FACTOR;
            done++;
        }
    }
}

/* Magnitudes spread within every line, not only between lines: a row's small
 * elements sit far below its largest, and per-line scaling (qmm_dgemm_i8's
 * slices and the CRT methods' rounding alike count their bits from the
 * line's largest) keeps few of their bits or none. */
static double wide(bench_rng *r)
{
    const int u = (int)(bench_rng_next(r) % (2 * WIDE_OCTAVES + 1)) - WIDE_OCTAVES;
    return ldexp(uniform_pm1(r), u);
}

/* Each distribution's elements before any scaling of lines or outliers. */
static double (*const element_of[COMPARE_DIST_COUNT])(bench_rng *) = {
    [COMPARE_UNIFORM] = uniform_pm1,
    [COMPARE_NORMAL] = normal01,
    [COMPARE_SCALED] = uniform_pm1,
    [COMPARE_OUTLIERS] = uniform_pm1,
    [COMPARE_WIDE] = wide,
};

static void draw(bench_rng *r, compare_dist d, double *x, size_t count)
{
    for (size_t i = 0; i < count; i++)
        x[i] = element_of[d](r);
}

int compare_make_operands(bench_shape s, compare_dist d, compare_operands *out)
{
    const size_t a_count = s.m * s.k, b_count = s.k * s.n;
    out->shape = s;
    out->a = malloc(a_count * sizeof *out->a);
    out->b = malloc(b_count * sizeof *out->b);
    out->af = malloc(a_count * sizeof *out->af);
    out->bf = malloc(b_count * sizeof *out->bf);
    if (out->a == NULL || out->b == NULL || out->af == NULL || out->bf == NULL) {
        compare_free_operands(out);
        return 0;
    }
    bench_rng rng = {0x7163636f6d706172u + (uint64_t)d};
    draw(&rng, d, out->a, a_count);
    draw(&rng, d, out->b, b_count);
    if (d == COMPARE_SCALED) {
        scale_lines(&rng, out->a, s.m, s.k, s.k, 1);   /* rows of A */
        scale_lines(&rng, out->b, s.n, s.k, 1, s.n);   /* columns of B */
    } else if (d == COMPARE_OUTLIERS) {
        add_outliers(&rng, out->a, a_count);
        add_outliers(&rng, out->b, b_count);
    }
    for (size_t i = 0; i < a_count; i++)
        out->af[i] = (float)out->a[i];
    for (size_t i = 0; i < b_count; i++)
        out->bf[i] = (float)out->b[i];
    return 1;
}

void compare_free_operands(compare_operands *o)
{
    free(o->a);
    free(o->b);
    free(o->af);
    free(o->bf);
    o->a = o->b = NULL;
    o->af = o->bf = NULL;
}

void compare_fill_digits(int8_t *p, size_t count)
{
    bench_rng rng = {0x646967697473u};
    bench_rng_fill_int8(&rng, p, count);
    /* -128 is no slice's value: fold it onto -127. */
    for (size_t i = 0; i < count; i++)
        if (p[i] == INT8_MIN)
            p[i] = -127;
}
