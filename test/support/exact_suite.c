#include "exact_suite.h"

#include <stdlib.h>

#include "testlib.h"

static const size_t sweep_depths[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65};

typedef struct suite {
    const char *label;
    gemm_strided_fn *strided;
    gemm_rowmajor_fn *rowmajor;
    long checks;
} suite;

/* One product on prepared operands: call, compare with the reference. */
static void check_product(suite *s, const char *what, test_matrix *a, test_matrix *b,
                          test_matrix *c, int rowmajor)
{
    size_t m = a->rows, k = a->cols, n = b->cols;
    int32_t *ref = malloc((m * n + 1) * sizeof *ref);
    if (ref == NULL)
        abort();
    test_reference(a, b, ref);
    qmm_status st;
    if (rowmajor)
        st = s->rowmajor(m, n, k, a->base, (size_t)a->rs, b->base, (size_t)b->rs, c->base,
                         (size_t)c->rs);
    else
        st = s->strided(m, n, k, a->base, a->rs, a->cs, b->base, b->rs, b->cs, c->base,
                        c->rs, c->cs);
    char label[200];
    snprintf(label, sizeof label, "%s %s m=%zu n=%zu k=%zu", s->label, what, m, n, k);
    CHECK(st == QMM_OK, "%s: status %s", label, qmm_status_str(st));
    if (st == QMM_OK)
        test_compare(label, c, ref);
    s->checks++;
    free(ref);
}

typedef struct operands {
    test_matrix a, b, c;
} operands;

static operands operands_new(size_t m, size_t n, size_t k, test_layout la, test_layout lb,
                             test_layout lc, size_t pad)
{
    operands o = {test_matrix_new(m, k, 1, la, pad), test_matrix_new(k, n, 1, lb, pad),
                  test_matrix_new(m, n, 4, lc, pad)};
    test_matrix_fill_random_i8(&o.a);
    test_matrix_fill_random_i8(&o.b);
    return o;
}

static void operands_free(operands *o)
{
    test_matrix_free(&o->a);
    test_matrix_free(&o->b);
    test_matrix_free(&o->c);
}

/* Every m, n in 1..17 with every sweep depth, row-major, leading dimensions
 * alternately tight and padded. */
static void sweep(suite *s)
{
    for (size_t m = 1; m <= 17; m++)
        for (size_t n = 1; n <= 17; n++)
            for (size_t d = 0; d < sizeof sweep_depths / sizeof sweep_depths[0]; d++) {
                size_t pad = (m + n + d) % 2 ? 3 : 0;
                operands o = operands_new(m, n, sweep_depths[d], LAYOUT_ROW, LAYOUT_ROW,
                                          LAYOUT_ROW, pad);
                check_product(s, "sweep", &o.a, &o.b, &o.c, s->rowmajor != NULL);
                operands_free(&o);
            }
}

/* Random shapes up to 300 in each dimension, each operand in a random layout. */
static void random_shapes(suite *s)
{
    for (int t = 0; t < 200; t++) {
        size_t m = 1 + test_rand_below(300), n = 1 + test_rand_below(300),
               k = 1 + test_rand_below(300);
        test_layout la = (test_layout)test_rand_below(LAYOUT_COUNT),
                    lb = (test_layout)test_rand_below(LAYOUT_COUNT),
                    lc = (test_layout)test_rand_below(LAYOUT_COUNT);
        operands o = operands_new(m, n, k, la, lb, lc, test_rand_below(5));
        char what[64];
        snprintf(what, sizeof what, "random A:%s B:%s C:%s", test_layout_names[la],
                 test_layout_names[lb], test_layout_names[lc]);
        check_product(s, what, &o.a, &o.b, &o.c, 0);
        operands_free(&o);
    }
}

/* Operands pinned to the ends of the int8 range, where -128 * -128 = 16384 is
 * the one product that does not fit a signed 8x8->15-bit assumption. */
static void extremes(suite *s)
{
    static const int8_t ends[][2] = {{-128, -128}, {-128, 127}, {127, 127}};
    for (size_t e = 0; e < sizeof ends / sizeof ends[0]; e++) {
        operands o = operands_new(33, 17, 65, LAYOUT_ROW, LAYOUT_COL, LAYOUT_ROW, 1);
        test_matrix_fill_i8(&o.a, ends[e][0]);
        test_matrix_fill_i8(&o.b, ends[e][1]);
        check_product(s, "extremes", &o.a, &o.b, &o.c, 0);
        operands_free(&o);
    }
}

/* k so large that the exact sums leave int32 both ways: every kernel must
 * wrap modulo 2^32 exactly like the reference. */
static void wraparound(suite *s)
{
    const size_t k = 140000;  /* 140000 * 16384 > 2^31 */
    static const int8_t ends[][2] = {{-128, -128}, {-128, 127}};
    for (size_t e = 0; e < sizeof ends / sizeof ends[0]; e++) {
        operands o = operands_new(9, 5, k, LAYOUT_ROW, LAYOUT_ROW, LAYOUT_ROW, 0);
        test_matrix_fill_i8(&o.a, ends[e][0]);
        test_matrix_fill_i8(&o.b, ends[e][1]);
        int64_t exact = (int64_t)k * ends[e][0] * ends[e][1];
        int32_t ref[9 * 5];
        test_reference(&o.a, &o.b, ref);
        CHECK(exact > INT32_MAX || exact < INT32_MIN, "wrap case does not leave int32");
        CHECK(ref[0] == (int32_t)(uint32_t)(uint64_t)exact,
              "reference does not wrap modulo 2^32");
        check_product(s, "wraparound", &o.a, &o.b, &o.c, 0);
        operands_free(&o);
    }
}

/* Shapes whose packed operands span several of the driver's 256 KiB blocks:
 * a deep B in several B blocks (A then packed whole), and a tall A in several
 * A blocks with B in one (the one-shot path that packs A block by block). */
static void several_blocks(suite *s)
{
    static const size_t shapes[][3] = {{13, 100, 4096}, {700, 20, 384}};
    for (size_t i = 0; i < 2; i++) {
        operands o = operands_new(shapes[i][0], shapes[i][1], shapes[i][2], LAYOUT_ROW,
                                  LAYOUT_ROW, LAYOUT_ROW, 0);
        check_product(s, "several blocks", &o.a, &o.b, &o.c, 0);
        operands_free(&o);
    }
}

long exact_suite_run(const char *label, gemm_strided_fn *strided, gemm_rowmajor_fn *rowmajor)
{
    suite s = {label, strided, rowmajor, 0};
    test_seed(0x9E3779B97F4A7C15ULL);
    sweep(&s);
    random_shapes(&s);
    extremes(&s);
    wraparound(&s);
    several_blocks(&s);
    return s.checks;
}
